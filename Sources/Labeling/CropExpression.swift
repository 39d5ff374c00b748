/// The network's centre crop written as an ffmpeg `crop` filter, so ffmpeg crops exactly as ImageCodecs'
/// `CenterCrop` does for still pictures: side = max(1, ⌊min(w, h) · 224/256⌋), left = ⌊(w − side + 1)/2⌋,
/// top = ⌊(h − side + 1)/2⌋ (a frame 1 pixel wide or high keeps a 1-pixel crop, as a picture does).
///
/// 224/256 = 7/8 exactly, so the integer form ⌊min(w, h) · 7 / 8⌋ matches `Int(224.0 / 256.0 * Double(min))`.
/// `exact=1` stops ffmpeg rounding the offsets to even numbers for chroma-subsampled input.
enum CropExpression {
    /// The filter text; single quotes protect the commas inside `min(…)` from the filtergraph parser.
    static let filter =
        "crop=w='max(1,floor(min(iw,ih)*7/8))':h='max(1,floor(min(iw,ih)*7/8))':x='floor((iw-ow+1)/2)':y='floor((ih-oh+1)/2)':exact=1"

    /// The same arithmetic in Swift, to test the expression against `CenterCrop`.
    static func crop(width: Int, height: Int) -> (left: Int, top: Int, side: Int) {
        let side = max(1, min(width, height) * 7 / 8)
        return ((width - side + 1) / 2, (height - side + 1) / 2, side)
    }
}
