// libFuzzer harness over the frame-folder namer: the bytes are file names separated by '/' (the one byte no file
// name holds), decoded as the folder listing would give them. Each name's frame number must be nil or a run of
// ASCII digits without leading zeros that occurs in the name, and its value (which sets the frame's time) must be
// the digits' value up to the largest frame number and nil above it. Anything else is a finding.
@testable import Video

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
            name.utf8.indices.contains(where: { name.utf8[$0...].starts(with: number.utf8) }) || number == "0"
        else {
            fatalError("frame number \(number.debugDescription) does not occur in \(name.debugDescription)")
        }
        numbers.append(number)
    }
    for number in numbers {
        let expected = value(number).flatMap { $0 <= UInt64(SamplingLimits.largestFrameNumber) ? Int($0) : nil }
        guard FrameFolder.number(number) == expected else {
            fatalError("frame number \(number) has value \(String(describing: FrameFolder.number(number))), expected \(String(describing: expected))")
        }
    }
    return 0
}
