// libFuzzer harness over the object-detection annotations parser: the bytes are an annotations.json (Create ML's,
// or detect --json's). Whatever parses must hold boxes with finite edges and positive sizes; checked against a
// 640 × 480 picture, every box it accepts must lie inside the picture with a size, and be the parsed box cut to it
// (never moved by more than the tolerance); no accepted name or label holds a control character. A refusal must be
// an AnnotationError naming the annotations file. Anything else is a finding.
import DetectionAnnotations
import ImageCodecs

private let annotationsFile = "annotations.json"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDetectionAnnotations(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let document: AnnotationDocument
    do {
        document = try AnnotationDocument.parse(bytes, file: annotationsFile)
    } catch {
        checkRefusal(error)
        return 0
    }
    let picture = ImageSize(width: 640, height: 480)
    for entry in document.entries {
        guard !entry.image.isEmpty, entry.number >= 1 else { fatalError("entry \(entry.number) without a name was accepted") }
        guard !hasControlCharacter(entry.image) else { fatalError("entry \(entry.number)'s name holds a control character") }
        for object in entry.objects {
            let box = object.box
            guard !object.label.isEmpty, [box.left, box.top, box.right, box.bottom].allSatisfy(\.isFinite),
                box.width > 0, box.height > 0
            else {
                fatalError("entry \(entry.number) holds a box without a size or with a non-finite edge: \(object)")
            }
            guard !hasControlCharacter(object.label) else { fatalError("entry \(entry.number) holds a label with a control character") }
        }
        let objects: [ObjectAnnotation]
        do {
            objects = try AnnotationDocument.objects(of: entry, in: picture, file: annotationsFile)
        } catch {
            checkRefusal(error)
            continue
        }
        guard objects.count == entry.objects.count else { fatalError("boxes were dropped instead of refused") }
        for (accepted, parsed) in zip(objects, entry.objects) {
            let box = accepted.box
            guard box.left >= 0, box.top >= 0, box.right <= 640, box.bottom <= 480, box.width > 0, box.height > 0 else {
                fatalError("an accepted box lies outside the picture: \(box)")
            }
            let moved = max(
                abs(box.left - parsed.box.left), abs(box.top - parsed.box.top), abs(box.right - parsed.box.right),
                abs(box.bottom - parsed.box.bottom))
            guard moved <= max(AnnotationDocument.overshootLimit(side: 640), AnnotationDocument.overshootLimit(side: 480)),
                accepted.label == parsed.label
            else {
                fatalError("an accepted box was moved by \(moved) px: \(parsed.box) became \(box)")
            }
        }
    }
    return 0
}

/// A refusal is valid when it names the annotations file (the only path the parser knows).
private func checkRefusal(_ error: AnnotationError) {
    guard error.path == annotationsFile else { fatalError("a refusal names \(error.path), not the annotations file") }
}

/// Whether `text` holds a C0 control character or DEL, which the parser refuses in names and labels.
private func hasControlCharacter(_ text: String) -> Bool {
    text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
}
