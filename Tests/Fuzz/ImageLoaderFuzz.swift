// libFuzzer harness over ImageLoader.decode(bytes:) with a small pixel limit: every format's Swift side, and the
// hand-written BMP decoder whole (the C libraries' own harnesses drive the shims). A crash or trap is a finding;
// so is a decoded image whose pixel count disagrees with its size, or a multi-line error.
@testable import ImageCodecs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageLoader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let options = DecodeOptions(maximumPixels: 1 << 22, minimumCropSide: nil)
    do {
        let image = try ImageLoader.decode(bytes: bytes, path: "fuzz", options: options)
        if image.pixels.count != image.width * image.height * 3 { fatalError("pixel count disagrees with the size") }
        // Again with shrinking and a crop, the reduction paths (on pictures large enough to crop).
        guard image.width >= 16 && image.height >= 16 else { return 0 }
        let cropped = DecodeOptions(maximumPixels: 1 << 22, minimumCropSide: 8, cropAndResize: CropAndResize(outputSide: 8, padding: 2))
        if let small = try? ImageLoader.decode(bytes: bytes, path: "fuzz", options: cropped),
            small.width != 8 || small.height != 8
        {
            fatalError("crop is \(small.width)×\(small.height), not 8×8")
        }
    } catch {
        if error.reason.contains("\n") { fatalError("multi-line reason: \(error.reason)") }
    }
    return 0
}
