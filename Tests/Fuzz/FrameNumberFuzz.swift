// libFuzzer harness over the frame-folder namer: the bytes are file names separated by '/' (the one byte no file
// name holds), decoded as the folder listing would give them. Each name's frame number must be nil or a run of
// ASCII digits without leading zeros that occurs in the name, and the natural order must be a strict order that
// agrees with the numbers' values. Anything else is a finding.
@testable import Labeling

/// The value of a digit string when it fits in 64 bits.
private func value(_ digits: String) -> UInt64? { UInt64(digits) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameNumber(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let names = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        .prefix(16).map { String(decoding: $0, as: UTF8.self) }
    var numbers: [String] = []
    for name in names {
        guard let number = FrameFolder.frameNumber(of: name) else { continue }
        guard !number.isEmpty, number.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            fatalError("frame number \(number.debugDescription) of \(name.debugDescription) is not ASCII digits")
        }
        guard number == "0" || number.utf8.first != 0x30 else {
            fatalError("frame number \(number.debugDescription) of \(name.debugDescription) has a leading zero")
        }
        guard name.utf8.count >= number.utf8.count,
              name.utf8.indices.contains(where: { name.utf8[$0...].starts(with: number.utf8) }) || number == "0" else {
            fatalError("frame number \(number.debugDescription) does not occur in \(name.debugDescription)")
        }
        numbers.append(number)
    }
    for left in numbers {
        for right in numbers {
            let forward = FrameFolder.naturalOrder(left, right), backward = FrameFolder.naturalOrder(right, left)
            guard (forward == nil) == (left == right), forward.map({ !$0 }) == backward else {
                fatalError("natural order of \(left) and \(right) is not a strict order: \(String(describing: forward)), \(String(describing: backward))")
            }
            if let leftValue = value(left), let rightValue = value(right), forward.map({ $0 != (leftValue < rightValue) }) ?? false {
                fatalError("natural order puts \(left) and \(right) against their values")
            }
        }
    }
    return 0
}
