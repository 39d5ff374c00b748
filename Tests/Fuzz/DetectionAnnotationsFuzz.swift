// libFuzzer harness over the object-detection annotations parser: the bytes are an annotations.json (Create ML's,
// or detect --json's). Whatever parses must hold boxes with finite edges and positive sizes; checked against a
// 640 × 480 picture, every box it accepts must lie inside the picture with a size, and be the parsed box cut to it
// (never moved by more than the tolerance). Anything else than a thrown error is a finding.
import DetectionAnnotations
import ImageCodecs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDetectionAnnotations(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let document = try? AnnotationDocument.parse(bytes, file: "annotations.json") else { return 0 }
    let picture = ImageSize(width: 640, height: 480)
    for entry in document.entries {
        guard !entry.image.isEmpty, entry.number >= 1 else { fatalError("entry \(entry.number) without a name was accepted") }
        for object in entry.objects {
            let box = object.box
            guard !object.label.isEmpty, [box.left, box.top, box.right, box.bottom].allSatisfy(\.isFinite),
                  box.width > 0, box.height > 0 else {
                fatalError("entry \(entry.number) holds a box without a size or with a non-finite edge: \(object)")
            }
        }
        guard let objects = try? AnnotationDocument.objects(of: entry, in: picture, file: "annotations.json") else { continue }
        guard objects.count == entry.objects.count else { fatalError("boxes were dropped instead of refused") }
        for (accepted, parsed) in zip(objects, entry.objects) {
            let box = accepted.box
            guard box.left >= 0, box.top >= 0, box.right <= 640, box.bottom <= 480, box.width > 0, box.height > 0 else {
                fatalError("an accepted box lies outside the picture: \(box)")
            }
            let moved = max(abs(box.left - parsed.box.left), abs(box.top - parsed.box.top), abs(box.right - parsed.box.right),
                            abs(box.bottom - parsed.box.bottom))
            guard moved <= AnnotationDocument.outsideTolerance, accepted.label == parsed.label else {
                fatalError("an accepted box was moved by \(moved) px: \(parsed.box) became \(box)")
            }
        }
    }
    return 0
}
