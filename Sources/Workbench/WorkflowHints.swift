import FileFormats

// What would help with the workflows' own refusals whose remedy sits inside the sentence: the library's reason says
// it in the request's terms, and a program words the whole reason with its own options (the CLI's `ErrorWording`).
extension ErrorHint {
    /// Clips, presence captions or a presence page were asked for on pictures: they are made from videos.
    public static let videoOutputsOnPictures = ErrorHint("Workbench.videoOutputsOnPictures")
    /// Mirror averaging was asked of a detector's export: the exported files cannot carry it; detection and
    /// evaluation can.
    public static let exportCarriesNoMirrorAveraging = ErrorHint("Workbench.exportCarriesNoMirrorAveraging")
    /// A detector was to be scored on a folder without annotations: it is scored on annotated boxes.
    public static let scoreDetectorOnBoxes = ErrorHint("Workbench.scoreDetectorOnBoxes")
}
