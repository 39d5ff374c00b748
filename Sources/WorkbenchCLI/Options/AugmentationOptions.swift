import ArgumentParser
import Workbench

/// The augmentation options `train` shares between `--augment N` (views for the frozen head) and fine-tuning.
struct AugmentationOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also train the frozen head on N augmented views of each training image (0 to \(AugmentedViewFeatures.maximumViews); held-out and testing images are never augmented).",
            valueName: "N"))
    var augment: Int = 0

    @Option(
        name: .long,
        help: ArgumentHelp("The augmentations, comma-separated: crop, flip, rotate, color, blur, noise, or all (default: all).", valueName: "list"))
    var augmentations: String?

    @Flag(name: .long, help: "Never mirror the views (digits, text, anything whose mirror image is something else).")
    var noFlip = false

    func validate() throws {
        guard (0...AugmentedViewFeatures.maximumViews).contains(augment) else {
            throw ValidationError("--augment must be between 0 and \(AugmentedViewFeatures.maximumViews), got \(augment)")
        }
        // `none` is a choice for fine-tuning; the command that makes views with them refuses it there.
        _ = try policy()
    }

    /// Whether any of these options was given, so a command that cannot use them can say so.
    var isGiven: Bool { augment != 0 || augmentations != nil || noFlip }

    /// The chosen transforms at their standard strengths (all of them by default), without the flip if asked.
    func policy() throws -> AugmentationPolicy {
        var transforms = Set(AugmentationPolicy.Transform.allCases)
        if let augmentations {
            do {
                transforms = try AugmentationPolicy.transforms(parsing: augmentations)
            } catch {
                throw ValidationError("--augmentations: \(error)")
            }
            if noFlip && transforms.contains(.flip) {
                throw ValidationError("--augmentations lists flip and --no-flip removes it: keep one")
            }
        }
        if noFlip { transforms.remove(.flip) }
        return AugmentationPolicy(transforms: transforms)
    }
}
