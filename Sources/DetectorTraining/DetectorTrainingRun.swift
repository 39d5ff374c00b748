import CenterNetHead
import DetectionAnnotations
import DetectionMetrics
import FileFormats
import Foundation
import Inference
import TensorCore

/// What a detector's training run is given.
public struct DetectorTrainingRequest: Sendable {
    /// The training pictures and their boxes (negatives included: pictures without objects).
    public var training: AnnotationSet
    /// Pictures scored once at the end with the chosen head and threshold, never used to choose anything.
    public var testing: AnnotationSet?
    /// The backbone whose maps the head reads.
    public var backbone: Backbone
    /// Threads, pixel limit and cache for the maps.
    public var featureSettings: FeatureSettings
    /// Side of the square network input (a multiple of 32).
    public var inputSide: Int
    /// The head's width C.
    public var headWidth: Int
    /// Random crops per training picture, beside the whole picture and its mirror.
    public var crops: Int
    /// Share of the training pictures held out to choose the epoch and the threshold.
    public var heldOutFraction: Double
    /// Epochs, batch, learning rate, seed and threads.
    public var schedule: DetectorHeadSchedule
    /// When set, the backbone's top (blocks 11–15) and the head are fine-tuned after the frozen head is trained.
    public var fineTuning: DetectorFineTuningSettings?
    /// When set, once the held-out pictures have chosen the epoch and the threshold, a new head (same seed) trains
    /// on every training picture, held-out ones included, for the chosen epoch count or the whole schedule, and is
    /// kept with that threshold. Frozen models only: when fine-tuning keeps an epoch there is no refit, and when it
    /// keeps the frozen model the refit runs as it would without fine-tuning (the same model, byte for byte).
    public var refit: DetectorRefitLength?

    /// The default schedule: 30 epochs of 16 pictures a step at Adam's 0.002, seed 42, every core.
    public static let defaultSchedule = DetectorHeadSchedule(
        epochs: 30, batchSize: 16, learningRate: 2e-3, seed: 42,
        threads: Parallel.coreCount)
    /// The default head width C.
    public static let defaultHeadWidth = 64
    /// The default count of random crops per training picture.
    public static let defaultCrops = 2
    /// The default held-out share.
    public static let defaultHeldOutFraction = 0.2
    /// The default refit: every epoch of the schedule on every training picture (measured on the validation frames
    /// by `scripts/accuracy/detector-refit-check.sh`: docs/evidence/detector-training.md, "Refit").
    public static let defaultRefit: DetectorRefitLength? = .allEpochs

    /// The defaults measured for 300 pictures on two cores (docs/evidence/detector-training.md, "Speed").
    public init(
        training: AnnotationSet, testing: AnnotationSet? = nil, backbone: Backbone,
        featureSettings: FeatureSettings = FeatureSettings(),
        inputSide: Int = DetectionFeatureExtractor.defaultInputSide, headWidth: Int = defaultHeadWidth,
        crops: Int = defaultCrops, heldOutFraction: Double = defaultHeldOutFraction,
        schedule: DetectorHeadSchedule = defaultSchedule, fineTuning: DetectorFineTuningSettings? = nil,
        refit: DetectorRefitLength? = defaultRefit
    ) {
        self.training = training
        self.testing = testing
        self.backbone = backbone
        self.featureSettings = featureSettings
        self.inputSide = inputSide
        self.headWidth = headWidth
        self.crops = crops
        self.heldOutFraction = heldOutFraction
        self.schedule = schedule
        self.fineTuning = fineTuning
        self.refit = refit
    }

    /// Whether this run refits whatever happens: asked for, and no fine-tuning (which chooses its own epoch on the
    /// held-out pictures, and refits only when it keeps the frozen model).
    public var refits: Bool { refit != nil && fineTuning == nil }
}

/// How long the refit on every training picture trains.
public enum DetectorRefitLength: String, Sendable, Equatable, Codable, CaseIterable {
    /// The epoch count the held-out pictures chose.
    case chosenEpoch = "chosen"
    /// The schedule's whole epoch count (`--epochs`): the held-out pictures choose only the threshold.
    case allEpochs = "all"

    /// How many epochs, in words, for the report's text and page.
    public var phrase: String { self == .chosenEpoch ? "the chosen count" : "the whole schedule" }
}

/// One epoch's figures, for the progress line and the report.
public struct DetectorEpoch: Sendable, Equatable, Codable {
    /// 1-based.
    public var epoch: Int
    /// Mean training loss over the epoch's batches.
    public var loss: Double
    /// mAP@0.5 on the held-out pictures after the epoch.
    public var heldOutMeanAveragePrecision50: Double
}

/// Progress of a run, in order.
public enum DetectorTrainingEvent: Sendable {
    /// Maps of `done` of `total` pictures are ready (read from the cache or computed).
    case maps(done: Int, total: Int)
    /// An epoch ended.
    case epoch(DetectorEpoch, of: Int)
    /// Fine-tuning starts from the frozen head, which scored this held-out mAP@0.5 (its epoch 0).
    case fineTuningStarted(heldOutMeanAveragePrecision50: Double)
    /// A fine-tuning epoch ended, having trained this many pictures a second.
    case fineTuningEpoch(DetectorEpoch, of: Int, imagesPerSecond: Double)
    /// An epoch of the refit on every training picture ended.
    case refitEpoch(epoch: Int, of: Int, loss: Double, pictures: Int)
    /// Something `--verbose` shows (negatives, boxes left out).
    case note(String)
    /// Boxes of the annotations `file` that overshot their picture by a few pixels and were cut to it
    /// (`AnnotationSet.clippedBoxes`): worth one warning.
    case clippedBoxes(file: String, [ClippedBox])
}

/// One picture the detector was scored on: its file, its objects and the detector's boxes on it (for the report
/// page, which draws them).
public struct ScoredPicture: Sendable {
    /// The picture's file.
    public var path: String
    /// Its objects and the boxes found, in the picture's pixels.
    public var evaluated: EvaluatedImage

    /// A picture from its parts.
    public init(path: String, evaluated: EvaluatedImage) {
        self.path = path
        self.evaluated = evaluated
    }
}

/// What a run produces: the detector (the held-out epoch's head and threshold) and its scores.
public struct DetectorTrainingResult: Sendable {
    /// The head of the epoch with the best held-out mAP@0.5, its labels, input side and threshold.
    public var detector: TrainedDetector
    /// The chosen epoch (1-based).
    public var chosenEpoch: Int
    /// Every epoch's figures.
    public var epochs: [DetectorEpoch]
    /// Scores on the held-out pictures at the chosen epoch and threshold (where both were chosen: optimistic).
    public var heldOut: DetectorScores
    /// Scores on the testing pictures, when given.
    public var testing: DetectorScores?
    /// The held-out pictures with the chosen head's boxes on them.
    public var heldOutPictures: [ScoredPicture]
    /// The testing pictures with the boxes, when given.
    public var testingPictures: [ScoredPicture]?
    /// Training and held-out pictures.
    public var trainingImageCount: Int, heldOutImageCount: Int
    /// Seconds spent on maps and on training the head.
    public var mapSeconds: Double, trainingSeconds: Double
    /// The backbone the detector reads: the request's, or with its top fine-tuned (what the model file stores).
    public var backbone: Backbone
    /// What fine-tuning did, when asked for.
    public var fineTuning: DetectorFineTuningOutcome?
    /// The refit on every training picture, when asked for: then `detector`'s head is the refit's, and `heldOut`
    /// and `heldOutPictures` are still the chosen epoch's (the refit has seen those pictures).
    public var refit: DetectorRefit?
    /// Whether no epoch scored above 0 on the held-out pictures (nor did fine-tuning): nothing the held-out
    /// pictures can see was learned, and the stored threshold means little. The model is still stored.
    public var learnedNothing: Bool = false
}

/// The refit on every training picture: how many, for how many epochs, each epoch's mean loss.
public struct DetectorRefit: Sendable, Equatable, Codable {
    /// The chosen epoch count or the schedule's.
    public var length: DetectorRefitLength
    /// Pictures trained on: the training ones and the held-out ones.
    public var pictures: Int
    /// Epochs trained.
    public var epochs: Int
    /// Each epoch's mean training loss.
    public var losses: [Double]
    /// Seconds of training.
    public var seconds: Double
}

/// What `--fine-tune` did: each epoch's figures and which was kept.
public struct DetectorFineTuningOutcome: Sendable {
    /// The settings it ran with.
    public var settings: DetectorFineTuningSettings
    /// The frozen head's held-out mAP@0.5: epoch 0, what an epoch must beat.
    public var frozenHeldOutMeanAveragePrecision50: Double
    /// Every fine-tuning epoch's loss and held-out mAP@0.5.
    public var epochs: [DetectorEpoch]
    /// The epoch kept (1-based), or 0 when none beat the frozen head on the held-out pictures (the frozen model is kept).
    public var chosenEpoch: Int
    /// The names of the backbone tensors that hold fine-tuned values (empty when the frozen model was kept).
    public var trainedTensorNames: [String]
    /// Seconds of the whole fine-tuning (training, held-out scoring, the kept backbone's maps).
    public var seconds: Double
    /// Seconds of each epoch's training.
    public var epochSeconds: [Double]
}

/// The run of `workbench train` on an object-detection dataset, frozen backbone: held-out split, maps of every
/// view (cached), the head trained with Adam, the epoch and the threshold chosen on the held-out pictures, scores.
public enum DetectorTrainingRun {
    /// Fewest annotated pictures a run accepts: one held out, two to train on.
    public static let minimumImages = 3

    /// Runs the whole training; `progress` is called on the calling thread.
    public static func run(
        _ request: DetectorTrainingRequest,
        progress: (DetectorTrainingEvent) -> Void = { _ in }
    ) throws(WorkbenchError) -> DetectorTrainingResult {
        let set = request.training
        let labels = set.labels
        guard !labels.isEmpty else { throw WorkbenchError(path: set.file, reason: "no boxes to learn from: every entry is empty") }
        let pictures = set.images + set.negatives
        guard set.images.count >= minimumImages else {
            throw WorkbenchError(path: set.file, reason: "\(set.images.count) pictures with boxes; a detector needs at least \(minimumImages)")
        }
        for note in set.notes { progress(.note(note)) }
        for annotations in [set, request.testing].compactMap({ $0 }) where !annotations.clippedBoxes.isEmpty {
            progress(.clippedBoxes(file: annotations.file, annotations.clippedBoxes))
        }
        let split = heldOutSplit(
            count: pictures.count, annotated: set.images.count, fraction: request.heldOutFraction,
            seed: request.schedule.seed)
        let extractor = try DetectionFeatureExtractor(
            backbone: request.backbone, inputSide: request.inputSide,
            settings: request.featureSettings)
        let mapStart = Date()
        var examples: [[DetectorExample]] = []
        var heldOutMaps: [[Float]] = [], heldOutSizes: [ImageSizeRecord] = []
        let grid = CenterNetGrid(inputWidth: request.inputSide, inputHeight: request.inputSide, stride: 16, labelCount: labels.count)
        let heldOut = Set(split.heldOut)
        // A held-out picture is seen whole, unless the refit will train on it: then it has every training view,
        // the first of which is the whole picture.
        let refits = request.refits
        let viewsOf = { @Sendable (index: Int) -> [DetectionView] in
            heldOut.contains(index) && !refits
                ? [DetectionView.whole]
                : TrainingViews.views(name: pictures[index].name, crops: request.crops, seed: request.schedule.seed)
        }
        var heldOutExamples: [[DetectorExample]] = []
        func trainingExamples(
            _ picture: AnnotatedImage, views: [DetectionView], maps: [[Float]],
            width: Int, height: Int
        ) -> [DetectorExample] {
            zip(views, maps).map { view, packed in
                let objects = TrainingViews.objects(
                    picture.objects, in: view, pictureWidth: width,
                    pictureHeight: height, inputSide: request.inputSide, labels: labels)
                return DetectorExample(maps: packed, targets: CenterNetTargets(objects: objects, grid: grid))
            }
        }
        var failure: WorkbenchError?
        extractor.extract(paths: pictures.map(\.path), views: viewsOf) { index, result in
            guard failure == nil else { return }
            switch result {
            case .failure(let error) where index >= set.images.count:
                // A negative that does not decode (a truncated file) is left out with a note, as one whose header
                // does not read is (`AnnotationReader`): one rule for every negative. It only trains, never held out.
                progress(.note("\(error.description) (a picture without an entry, left out)"))
            case .failure(let error): failure = error
            case .success(let (maps, size)):
                let picture = pictures[index]
                if heldOut.contains(index) {
                    heldOutMaps.append(maps[0])
                    heldOutSizes.append(ImageSizeRecord(index: index, width: size.width, height: size.height))
                    if refits {
                        heldOutExamples.append(trainingExamples(picture, views: viewsOf(index), maps: maps, width: size.width, height: size.height))
                    }
                } else {
                    examples.append(trainingExamples(picture, views: viewsOf(index), maps: maps, width: size.width, height: size.height))
                }
                progress(.maps(done: index + 1, total: pictures.count))
            }
        }
        if let failure { throw failure }
        let mapSeconds = Date().timeIntervalSince(mapStart)

        let trainingStart = Date()
        var head = DetectorHeadNetwork<Float>(labelCount: labels.count, width: request.headWidth, seed: request.schedule.seed)
        var best: (epoch: Int, score: Double, head: DetectorHeadNetwork<Float>)?
        var epochs: [DetectorEpoch] = []
        let heldOutTruth = heldOutSizes.map { pictures[$0.index] }
        DetectorHeadTrainer.train(&head, examples: examples, schedule: request.schedule, inputSide: request.inputSide) { epoch, loss, trained in
            let detector = TrainedDetector(head: trained, labels: labels, inputSide: request.inputSide, threshold: 0)
            let images = evaluated(detector, maps: heldOutMaps, sizes: heldOutSizes, truth: heldOutTruth)
            let score = AveragePrecision.evaluate(images, labels: labels).meanAveragePrecision50 ?? 0
            let record = DetectorEpoch(epoch: epoch, loss: loss, heldOutMeanAveragePrecision50: score)
            epochs.append(record)
            // Of equal scores the earlier epoch: fewer steps for the same worth.
            if best == nil || score > best!.score { best = (epoch, score, trained) }
            progress(.epoch(record, of: request.schedule.epochs))
        }
        let chosen = best!
        var detector = TrainedDetector(head: chosen.head, labels: labels, inputSide: request.inputSide, threshold: 0.5)
        let trainingSeconds = Date().timeIntervalSince(trainingStart)

        var backbone = request.backbone, servingExtractor = extractor
        var fineTuning: DetectorFineTuningOutcome?
        // Without fine-tuning, or when fine-tuning keeps the frozen model: the refit, as a plain run makes it.
        var refitsFrozenModel = refits
        if let settings = request.fineTuning {
            let tuned = try fineTune(
                request: request, settings: settings, labels: labels, head: chosen.head,
                frozenScore: chosen.score, examples: examples, heldOutMaps: heldOutMaps,
                heldOutSizes: heldOutSizes, heldOutTruth: heldOutTruth, progress: progress)
            fineTuning = tuned.outcome
            if let kept = tuned.backbone {
                backbone = kept
                detector.head = tuned.head
                servingExtractor = try DetectionFeatureExtractor(
                    backbone: kept, inputSide: request.inputSide,
                    settings: request.featureSettings)
                // The held-out maps again, through the stored backbone's inference path: what `detect` will compute.
                heldOutMaps = try wholeViewMaps(heldOutTruth.map(\.path), extractor: servingExtractor).maps
                fineTuning?.seconds = Date().timeIntervalSince(tuned.start)
            } else if request.refit != nil {
                // The frozen model is kept: it must be the plain run's, refit included. The held-out pictures were
                // seen whole only; their training views come now (the same maps a plain run computes first).
                heldOutExamples = try everyViewExamples(
                    of: heldOutTruth, indices: heldOutSizes.map(\.index), extractor: extractor,
                    viewsOf: { TrainingViews.views(name: pictures[$0].name, crops: request.crops, seed: request.schedule.seed) },
                    examples: trainingExamples)
                refitsFrozenModel = true
            }
        }
        let heldOutImages = evaluated(detector, maps: heldOutMaps, sizes: heldOutSizes, truth: heldOutTruth)
        detector.threshold = OperatingPoint.bestF1(in: heldOutImages)?.threshold ?? 0.5

        var refit: DetectorRefit?
        if refitsFrozenModel, let length = request.refit {
            // A new head from the same start, on every picture, its learning rate schedule run whole over the
            // refit's epochs; the threshold stays the one the held-out pictures chose.
            let refitStart = Date()
            let everyPicture = examples + heldOutExamples
            var refitSchedule = request.schedule
            refitSchedule.epochs = length == .chosenEpoch ? chosen.epoch : request.schedule.epochs
            var refitHead = DetectorHeadNetwork<Float>(labelCount: labels.count, width: request.headWidth, seed: request.schedule.seed)
            var losses: [Double] = []
            DetectorHeadTrainer.train(&refitHead, examples: everyPicture, schedule: refitSchedule, inputSide: request.inputSide) { epoch, loss, _ in
                losses.append(loss)
                progress(.refitEpoch(epoch: epoch, of: refitSchedule.epochs, loss: loss, pictures: everyPicture.count))
            }
            detector.head = refitHead
            refit = DetectorRefit(
                length: length, pictures: everyPicture.count, epochs: refitSchedule.epochs, losses: losses,
                seconds: Date().timeIntervalSince(refitStart))
        }

        var testingPictures: [ScoredPicture]?
        if let testing = request.testing {
            testingPictures = try scoredPictures(detector, on: testing, extractor: servingExtractor)
        }
        return DetectorTrainingResult(
            detector: detector, chosenEpoch: chosen.epoch, epochs: epochs,
            heldOut: DetectorScores(heldOutImages, labels: labels, threshold: detector.threshold),
            testing: testingPictures.map {
                DetectorScores($0.map(\.evaluated), labels: detector.labels, threshold: detector.threshold)
            },
            heldOutPictures: zip(heldOutTruth, heldOutImages).map { ScoredPicture(path: $0.path, evaluated: $1) },
            testingPictures: testingPictures, trainingImageCount: examples.count,
            heldOutImageCount: heldOutMaps.count, mapSeconds: mapSeconds, trainingSeconds: trainingSeconds,
            backbone: backbone, fineTuning: fineTuning, refit: refit,
            learnedNothing: chosen.score <= 0 && (fineTuning?.chosenEpoch ?? 0) == 0)
    }

    /// Every view's examples of `pictures` (at `indices` of the run's list), in order, for the refit.
    private static func everyViewExamples(
        of pictures: [AnnotatedImage], indices: [Int], extractor: DetectionFeatureExtractor,
        viewsOf: @escaping @Sendable (Int) -> [DetectionView],
        examples: (AnnotatedImage, [DetectionView], [[Float]], Int, Int) -> [DetectorExample]
    ) throws(WorkbenchError) -> [[DetectorExample]] {
        var result: [[DetectorExample]] = []
        var failure: WorkbenchError?
        extractor.extract(paths: pictures.map(\.path), views: { viewsOf(indices[$0]) }) { index, outcome in
            guard failure == nil else { return }
            switch outcome {
            case .failure(let error): failure = error
            case .success(let (maps, size)):
                result.append(examples(pictures[index], viewsOf(indices[index]), maps, size.width, size.height))
            }
        }
        if let failure { throw failure }
        return result
    }

    /// Fine-tunes the backbone's top and the head from the frozen run's `head`, scoring the held-out pictures after
    /// each epoch (the top's forward on their cached stride-16 maps). The frozen head is epoch 0: an epoch is kept
    /// only when its held-out mAP@0.5 beats every earlier one and the frozen head's, so fine-tuning never does worse
    /// there. Returns the kept epoch's backbone (nil when the frozen model stays) and head.
    static func fineTune(
        request: DetectorTrainingRequest, settings: DetectorFineTuningSettings, labels: [String],
        head: DetectorHeadNetwork<Float>, frozenScore: Double, examples: [[DetectorExample]],
        heldOutMaps: [[Float]], heldOutSizes: [ImageSizeRecord], heldOutTruth: [AnnotatedImage],
        progress: (DetectorTrainingEvent) -> Void
    ) throws(WorkbenchError)
        -> (outcome: DetectorFineTuningOutcome, backbone: Backbone?, head: DetectorHeadNetwork<Float>, start: Date)
    {
        if let problem = settings.problem { throw WorkbenchError(path: request.training.file, reason: problem) }
        let start = Date()
        var network = DetectorNetwork(top: DetectorBackboneTop(network: try request.backbone.makeNetwork()), head: head)
        progress(.fineTuningStarted(heldOutMeanAveragePrecision50: frozenScore))
        var best: (epoch: Int, score: Double, network: DetectorNetwork?) = (0, frozenScore, nil)
        var epochs: [DetectorEpoch] = [], epochSeconds: [Double] = []
        DetectorFineTuner.train(
            &network, examples: examples, schedule: request.schedule, settings: settings,
            inputSide: request.inputSide
        ) { epoch, loss, seconds, trained in
            let score = heldOutScore(
                trained, labels: labels, inputSide: request.inputSide, maps: heldOutMaps,
                sizes: heldOutSizes, truth: heldOutTruth)
            let record = DetectorEpoch(epoch: epoch, loss: loss, heldOutMeanAveragePrecision50: score)
            epochs.append(record)
            epochSeconds.append(seconds)
            // Strictly better than the frozen head and every earlier epoch: of equal scores the fewer changes.
            if score > best.score { best = (epoch, score, trained) }
            progress(.fineTuningEpoch(record, of: settings.epochs, imagesPerSecond: seconds > 0 ? Double(examples.count) / seconds : 0))
        }
        var outcome = DetectorFineTuningOutcome(
            settings: settings, frozenHeldOutMeanAveragePrecision50: frozenScore, epochs: epochs,
            chosenEpoch: best.epoch, trainedTensorNames: [],
            seconds: Date().timeIntervalSince(start), epochSeconds: epochSeconds)
        guard let kept = best.network else { return (outcome, nil, head, start) }
        outcome.trainedTensorNames = kept.top.trainedTensorNames
        let tensors = kept.top.backboneTensors(over: request.backbone.weights.tensors)
        let backbone = Backbone(
            weights: SafetensorsFile(tensors: tensors), source: request.backbone.source,
            preprocessing: request.backbone.preprocessing)
        return (outcome, backbone, kept.head, start)
    }

    /// Held-out mAP@0.5 of a network being fine-tuned, on the cached whole-view maps.
    static func heldOutScore(
        _ network: DetectorNetwork, labels: [String], inputSide: Int, maps: [[Float]],
        sizes: [ImageSizeRecord], truth: [AnnotatedImage]
    ) -> Double {
        let chunk = 32
        var images: [EvaluatedImage] = []
        let detector = TrainedDetector(head: network.head, labels: labels, inputSide: inputSide, threshold: 0)
        for first in stride(from: 0, to: maps.count, by: chunk) {
            let range = first..<min(maps.count, first + chunk)
            let outputs = network.outputs(for: Array(maps[range]), inputSide: inputSide)
            for (item, index) in range.enumerated() {
                let predictions = detector.objects(
                    outputs: outputs, item: item, pictureWidth: sizes[index].width,
                    pictureHeight: sizes[index].height)
                images.append(EvaluatedImage(groundTruth: truth[index].objects, predictions: predictions))
            }
        }
        return AveragePrecision.evaluate(images, labels: labels).meanAveragePrecision50 ?? 0
    }

    /// The whole view's maps of each picture at `paths` (from the cache when there) and its size, in order, and with
    /// `mirror` the mirrored view's maps too (else `mirrored` is empty); `progress` counts the pictures done.
    static func wholeViewMaps(
        _ paths: [String], extractor: DetectionFeatureExtractor, mirror: Bool = false,
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws(WorkbenchError)
        -> (maps: [[Float]], mirrored: [[Float]], sizes: [ImageSizeRecord])
    {
        var maps: [[Float]] = [], mirrored: [[Float]] = [], sizes: [ImageSizeRecord] = []
        var failure: WorkbenchError?
        let views = DetectionView.answering(mirror: mirror)
        extractor.extract(paths: paths, views: { _ in views }) { index, result in
            switch result {
            case .failure(let error): if failure == nil { failure = error }
            case .success(let (viewMaps, size)):
                maps.append(viewMaps[0])
                if mirror { mirrored.append(viewMaps[1]) }
                sizes.append(ImageSizeRecord(index: index, width: size.width, height: size.height))
            }
            progress(index + 1, paths.count)
        }
        if let failure { throw failure }
        return (maps, mirrored, sizes)
    }

    /// Scores `detector` on every picture of `set` (whole views, maps from the cache when there).
    /// With `mirror`, each picture's boxes come from it and its mirror averaged (`MirrorAveraging`, `--tta`).
    public static func score(
        _ detector: TrainedDetector, on set: AnnotationSet, extractor: DetectionFeatureExtractor,
        mirror: Bool = false
    ) throws(WorkbenchError) -> DetectorScores {
        let pictures = try scoredPictures(detector, on: set, extractor: extractor, mirror: mirror)
        return DetectorScores(pictures.map(\.evaluated), labels: detector.labels, threshold: detector.threshold)
    }

    /// The boxes `detector` finds on every picture of `set`, beside the picture's objects; `progress` counts the
    /// pictures whose maps are ready, in order, on the calling thread. With `mirror`, each picture's boxes come from
    /// it and its mirror averaged (`MirrorAveraging`, `--tta`).
    public static func scoredPictures(
        _ detector: TrainedDetector, on set: AnnotationSet, extractor: DetectionFeatureExtractor,
        mirror: Bool = false, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    )
        throws(WorkbenchError) -> [ScoredPicture]
    {
        let pictures = set.images + set.negatives
        let (maps, mirrored, sizes) = try wholeViewMaps(
            pictures.map(\.path), extractor: extractor, mirror: mirror,
            progress: progress)
        let images = evaluated(detector, maps: maps, mirrored: mirrored, sizes: sizes, truth: pictures)
        return zip(pictures, images).map { ScoredPicture(path: $0.path, evaluated: $1) }
    }

    /// The held-out pictures: `fraction` of the annotated ones (at least one, leaving at least two to train on),
    /// drawn with the seed; negatives all train. Indices into `images + negatives`, ascending.
    static func heldOutSplit(count: Int, annotated: Int, fraction: Double, seed: UInt64) -> (heldOut: [Int], training: [Int]) {
        var order = Array(0..<annotated)
        var random = SplitMix64(seed: SplitMix64.mix(seed))
        random.shuffle(&order)
        let heldCount = min(annotated - 2, max(1, Int((Double(annotated) * fraction).rounded())))
        let heldOut = order.prefix(heldCount).sorted()
        let held = Set(heldOut)
        return (heldOut, (0..<count).filter { !held.contains($0) })
    }

    /// Predictions of `detector` on whole-view maps (averaged with the mirrored views' when `mirrored` has them),
    /// paired with each picture's ground truth.
    static func evaluated(
        _ detector: TrainedDetector, maps: [[Float]], mirrored: [[Float]] = [], sizes: [ImageSizeRecord],
        truth: [AnnotatedImage]
    ) -> [EvaluatedImage] {
        let chunk = 32
        var images: [EvaluatedImage] = []
        for first in stride(from: 0, to: maps.count, by: chunk) {
            let range = first..<min(maps.count, first + chunk)
            let outputs = detector.outputs(for: Array(maps[range]))
            let mirroredOutputs = mirrored.isEmpty ? nil : detector.outputs(for: Array(mirrored[range]))
            for (item, index) in range.enumerated() {
                let predictions = detector.objects(
                    outputs: outputs, mirroredOutputs: mirroredOutputs, item: item,
                    pictureWidth: sizes[index].width, pictureHeight: sizes[index].height)
                images.append(EvaluatedImage(groundTruth: truth[index].objects, predictions: predictions))
            }
        }
        return images
    }
}

/// A picture's position in the run's list and its decoded size.
struct ImageSizeRecord: Sendable {
    var index: Int
    var width: Int
    var height: Int
}
