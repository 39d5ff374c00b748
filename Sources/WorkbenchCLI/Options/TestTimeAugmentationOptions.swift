import ArgumentParser

/// `--tta` / `--no-tta` for the commands that answer with a model (`classify`, `evaluate`, `label`, `slurm label`).
struct TestTimeAugmentationOptions: ParsableArguments {
    @Flag(
        name: .long, inversion: .prefixedNo,
        help: ArgumentHelp(
            "Average each answer over the model's test-time views: the image, its centre 7/8, and both mirrored "
                + "(never mirrored for a model trained with --no-flip). Costs 4 times the network work (2 without "
                + "mirrors). --no-tta turns off a default stored by train --tta (default: the model's)."))
    var tta: Bool?
}
