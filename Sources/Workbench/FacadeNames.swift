import Augmentation
import ClusterJobs
import FileFormats
import ImageCodecs
import Labeling
import ModelFiles
import TensorCore
import Training

// The lower modules' types that callers of the facade name (the CLI among them), so that they import Workbench
// alone. Each is an alias of the module's own type, never a second implementation; the facade's dependency list
// stays the one place that decides what reaches the outside.

/// The bounds on sampling intervals and frame numbers (`Labeling.SamplingLimits`).
public typealias SamplingLimits = Labeling.SamplingLimits
/// Turns per-frame verdicts into the labels markers use: minimum confidence, fallback, smoothing (`Labeling`).
public typealias MarkerPolicy = Labeling.MarkerPolicy
/// One frame's label after the marker policy, and why (`Labeling`).
public typealias FrameDecision = Labeling.FrameDecision
/// A video's mean confidence per label, its top label and each label's best window (`Labeling`).
public typealias VideoSummary = Labeling.VideoSummary
/// Choosing and joining highlight clips (`Labeling`).
public typealias Highlights = Labeling.Highlights
/// Which videos give a highlight clip (`Labeling`).
public typealias HighlightSelection = Labeling.HighlightSelection
/// The player's `MovieData.json`: strict load, atomic locked update (`Labeling`).
public typealias MovieData = Labeling.MovieData
/// What to set on one movie of `MovieData.json` (`Labeling`).
public typealias MovieUpdate = Labeling.MovieUpdate
/// How training weighs the labels: uniform or balanced (`Training`).
public typealias ClassWeighting = Training.ClassWeighting
/// The Wilson score interval of an accuracy (`Training`).
public typealias WilsonInterval = Training.WilsonInterval
/// An accuracy's interval as reports store it (`Training`).
public typealias AccuracyInterval = Training.AccuracyInterval
/// Whole-file atomic writes (`FileFormats`).
public typealias AtomicFile = FileFormats.AtomicFile
/// A buffered output file or standard output, atomic for regular files (`FileFormats`).
public typealias OutputFile = FileFormats.OutputFile
/// JSON literals: quoted strings and numbers (`FileFormats`).
public typealias JSONText = FileFormats.JSONText
/// Parallel loops over the machine's cores (`TensorCore`).
public typealias Parallel = TensorCore.Parallel
/// `errno` as words (`FileFormats`).
public typealias SystemError = FileFormats.SystemError
/// One of N parts of a command's inputs, `--shard I/N` (`ClusterJobs`).
public typealias Shard = ClusterJobs.Shard
/// Where a shard came from: the option, a Slurm array task, a Kubernetes Indexed Job (`ClusterJobs`).
public typealias ShardSource = ClusterJobs.ShardSource
/// Which augmentations make the views of training images, and how strongly (`Augmentation`).
public typealias AugmentationPolicy = Augmentation.AugmentationPolicy
/// An augmentation policy's or view's failure (`Augmentation`).
public typealias AugmentationError = Augmentation.AugmentationError
/// How an image becomes the network's input, as stored in a model file (`ImageCodecs`).
public typealias ImagePreprocessing = ImageCodecs.ImagePreprocessing
/// What fine-tuning trained in a model's backbone (`ModelFiles`).
public typealias FineTuningRecord = ModelFiles.FineTuningRecord
/// Compact JSON, one line, members in encoding order (`FileFormats`).
public typealias JSONLineEncoder = FileFormats.JSONLineEncoder
