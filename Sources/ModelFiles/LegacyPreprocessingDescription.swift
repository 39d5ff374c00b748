import ImageCodecs

/// The preprocessing description of model format versions 1 and 2: `ImagePreprocessing` before it had a version
/// and an alpha background. Those Workbench builds always composited onto white and knew one recipe, so every such
/// file means `ImagePreprocessing` version 1 with a white background.
struct LegacyPreprocessingDescription: Decodable {
    let name: String
    let inputSide: Int
    let cropPadding: Int
    let resample: String
    let mean: [Float]
    let std: [Float]
    let channelOrder: String

    /// The same recipe as today's value.
    var value: ImagePreprocessing {
        ImagePreprocessing(
            version: 1, name: name, inputSide: inputSide, cropPadding: cropPadding, resample: resample,
            mean: mean, std: std, channelOrder: channelOrder,
            alphaBackground: ImagePreprocessing.efficientNetLite0.alphaBackground)
    }
}
