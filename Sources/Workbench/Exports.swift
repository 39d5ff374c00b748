// The library's API speaks in the values of the modules below (a `Classifier`, a `TrainingReport`, a `MarkerPolicy`,
// a `Shard` …), so a program that imports Workbench sees them without naming each module. The engines that only do
// work for the workflows (layers, kernels, codecs' internals, the trainable network) are not re-exported.
@_exported import Augmentation
@_exported import Detection
@_exported import DetectionAnnotations
@_exported import DetectionMetrics
@_exported import DetectorTraining
@_exported import ClassifierTraining
@_exported import ClusterJobs
@_exported import DataAudit
@_exported import FileFormats
@_exported import FineTuning
@_exported import ImageCodecs
@_exported import Inference
@_exported import Labeling
@_exported import Phases
@_exported import Reports
@_exported import ModelFiles
@_exported import Overlays
@_exported import TensorCore
@_exported import LogisticHead
@_exported import Video
