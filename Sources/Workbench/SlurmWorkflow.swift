import ClusterJobs
import Datasets
import FileFormats
import Foundation

/// `workbench slurm label` and `workbench slurm features`: the array job (one task per shard) and, for labeling,
/// the merge job that waits for it; written as batch scripts, then submitted with sbatch.
public enum SlurmWorkflow {
    /// A job that was submitted.
    public struct Submitted: Sendable, Equatable {
        /// Slurm's job id.
        public let id: String
        /// What it does.
        public let summary: String
        /// Its log files, ids filled in where known (`%A` is this job's id).
        public let logPattern: String
    }

    /// Labeling `movies` with `model` in `request.tasks` shards into `results`, then merging them into `movieData`.
    /// Checks what it can before anything runs: the model loads, every movie exists and has its own id, there are
    /// no more tasks than movies.
    /// Plans `request`'s job and, when it submits, writes the scripts and submits them (`submit`), reporting each
    /// job submitted.
    public static func run(_ request: SlurmJobRequest, events: (SlurmEvent) -> Void = { _ in }) throws(WorkbenchError) -> SlurmResult {
        let plan: SlurmPlan
        switch request.job {
        case .label(let model, let movies, let movieData, let results, let settings):
            plan = try labelPlan(
                model: model, movies: movies, movieData: movieData,
                results: results ?? request.cluster.jobFolder + "/label-results", settings: settings,
                request: request.cluster)
        case .features(let inputs, let backbone):
            plan = try featuresPlan(
                inputs: inputs, backbone: try BackboneLocation.resolve(explicit: backbone), cacheFolder: nil,
                request: request.cluster)
        }
        guard request.submits else { return SlurmResult(plan: plan, submitted: []) }
        try WritableOutput.checkConflicts(inputs: try filesRead(request.job), outputs: plan.jobs.map(\.scriptPath))
        let submitted = try submit(plan)
        for job in submitted { events(.submitted(job)) }
        return SlurmResult(plan: plan, submitted: submitted)
    }

    public static func labelPlan(
        model: String, movies: [String], movieData: String, results: String,
        settings: LabelSettings, request: SlurmRequest
    ) throws(WorkbenchError) -> SlurmPlan {
        // The model loads, and has a threshold if the settings ask for it.
        _ = try settings.markerPolicy(for: Classifier.load(path: model))
        let runMovies = try ShardedLabeling.movies(movies)
        for movie in runMovies where !FileManager.default.fileExists(atPath: movie.path) {
            throw WorkbenchError(path: movie.path, reason: "no such video file or frames folder")
        }
        try requireTasks(request.tasks, atMost: runMovies.count, of: "movies")
        let absolute = ShardedLabeling.absolutePath
        let (modelPath, resultsPath, movieDataPath) = (absolute(model), absolute(results), absolute(movieData))
        let folder = absolute(request.jobFolder)
        let binary = try executable(request)
        try checkScriptValues(
            [
                (modelPath, "model path"), (resultsPath, "results folder"), (movieDataPath, "MovieData file"),
                (folder, "job folder"), (binary, "workbench binary"),
            ]
                + runMovies.map { ($0.path, "movie path") })
        if FileManager.default.fileExists(atPath: movieDataPath) {
            // A broken player file fails now, not after the whole array has run.
            try ShardedLabeling.checkMovieData(movieDataPath)
        }
        let resources = try resources(request)
        let array = try script(
            SlurmJob(
                name: "workbench-label", arrayTasks: request.tasks, resources: resources,
                logFile: folder + "/logs/label-%A_%a.log", environment: [],
                command: WorkbenchTaskCommand.label(
                    binary: binary, model: modelPath, movies: runMovies.map(\.path),
                    results: resultsPath, threads: request.cpusPerTask,
                    options: settings.taskOptions, shardCount: request.tasks),
                description: [
                    "Written by workbench slurm label: \(runMovies.count) movies in \(request.tasks) shards, task i labels shard i,",
                    "one result file per movie in \(resultsPath) (a requeued task skips the movies it finished).",
                ]))
        let merge = try script(
            SlurmJob(
                name: "workbench-label-merge", arrayTasks: nil, resources: resources,
                logFile: folder + "/logs/label-merge-%j.log", environment: [],
                command: WorkbenchTaskCommand.merge(binary: binary, results: resultsPath, movieData: movieDataPath),
                description: [
                    "Written by workbench slurm label: after every task of the array job succeeded, merges",
                    "the results into \(movieDataPath) in one locked write.",
                ]))
        let prepare: @Sendable () throws(WorkbenchError) -> Void = {
            try ShardedLabeling.prepare(results: resultsPath, movies: runMovies, modelPath: modelPath, settings: settings)
        }
        return SlurmPlan(
            jobs: [
                .init(
                    script: array, scriptPath: folder + "/label-array.sbatch", afterPrevious: false,
                    summary: "array job: \(request.tasks) tasks label \(runMovies.count) movies into \(resultsPath)",
                    logPattern: folder + "/logs/label-%A_%a.log"),
                .init(
                    script: merge, scriptPath: folder + "/label-merge.sbatch", afterPrevious: true,
                    summary: "merge job: after the array job succeeds, merges \(resultsPath) into \(movieDataPath)",
                    logPattern: folder + "/logs/label-merge-%j.log"),
            ], prepare: prepare)
    }

    /// Embedding the images of `inputs` in `request.tasks` shards into the feature cache at `cacheFolder` (nil: the
    /// one this process would use; every node must see it), after which `train` runs from the warm cache. The
    /// tasks use the backbone at `backbone`.
    public static func featuresPlan(
        inputs: [String], backbone: String, cacheFolder: String?,
        request: SlurmRequest
    ) throws(WorkbenchError) -> SlurmPlan {
        let list = try ImageFileList.expand(inputs)
        let count = list.files.count + list.unreadable.count
        guard count > 0 else { throw WorkbenchError("no image files in \(inputs.joined(separator: ", "))") }
        try requireTasks(request.tasks, atMost: count, of: "images")
        let absolute = ShardedLabeling.absolutePath
        let folder = absolute(request.jobFolder)
        let binary = try executable(request)
        let cache = absolute(cacheFolder ?? FeatureCache.defaultFolder(environment: ProcessInfo.processInfo.environment))
        try checkScriptValues(
            [
                (cache, "feature cache folder (WORKBENCH_CACHE)"), (absolute(backbone), "backbone path"),
                (folder, "job folder"), (binary, "workbench binary"),
            ]
                + inputs.map { (absolute($0), "input path") })
        let array = try script(
            SlurmJob(
                name: "workbench-features", arrayTasks: request.tasks, resources: try resources(request),
                logFile: folder + "/logs/features-%A_%a.log", environment: [ExportedVariable(name: "WORKBENCH_CACHE", value: cache)],
                command: WorkbenchTaskCommand.fillCache(
                    binary: binary, inputs: inputs.map(absolute), backbone: absolute(backbone),
                    threads: request.cpusPerTask, shardCount: request.tasks),
                description: [
                    "Written by workbench slurm features: \(count) images in \(request.tasks) shards, task i embeds shard i",
                    "into the feature cache \(cache) (images already there are skipped).",
                ]))
        return SlurmPlan(
            jobs: [
                .init(
                    script: array, scriptPath: folder + "/features-array.sbatch", afterPrevious: false,
                    summary: "array job: \(request.tasks) tasks embed \(count) images into \(cache)",
                    logPattern: folder + "/logs/features-%A_%a.log")
            ], prepare: {})
    }

    /// Writes the scripts and the logs folder, prepares what the tasks share, and submits each job in order, each
    /// marked to wait for the one before it where the plan says so. A failure after the first submission names the
    /// jobs already submitted, so they can be cancelled.
    public static func submit(_ plan: SlurmPlan, submitter: SlurmSubmitter? = nil) throws(WorkbenchError) -> [Submitted] {
        let sbatch: SlurmSubmitter
        if let submitter { sbatch = submitter } else { sbatch = try WorkbenchError.passingOn { try SlurmSubmitter.locate() } }
        for job in plan.jobs {
            try WorkbenchError.passingOn {
                try FolderCreation.create((job.logPattern as NSString).deletingLastPathComponent)
                try AtomicFile.write(text: job.script, to: job.scriptPath)
            }
        }
        try plan.prepare()
        var submitted: [Submitted] = []
        for job in plan.jobs {
            do {
                let id = try sbatch.submit(scriptPath: job.scriptPath, afterOK: job.afterPrevious ? submitted.last?.id : nil)
                submitted.append(
                    Submitted(
                        id: id, summary: job.summary,
                        logPattern: job.logPattern.replacingOccurrences(of: "%A", with: id)))
            } catch {
                let earlier =
                    submitted.isEmpty
                    ? "" : "; already submitted: \(submitted.map(\.id).joined(separator: ", ")) (scancel them, or submit the rest by hand)"
                throw WorkbenchError(path: error.path ?? job.scriptPath, reason: error.reason + earlier)
            }
        }
        return submitted
    }

    /// What the job's tasks read and the player file its merge writes, which no script may replace.
    private static func filesRead(_ job: SlurmJobRequest.Job) throws(WorkbenchError) -> [String] {
        switch job {
        case .label(let model, let movies, let movieData, _, _):
            return [model, movieData] + WritableOutput.movieFiles(movies)
        case .features(let inputs, let backbone):
            return inputs + (try ImageFileList.expand(inputs)).files + [try BackboneLocation.resolve(explicit: backbone)]
        }
    }

    private static func requireTasks(_ tasks: Int, atMost count: Int, of things: String) throws(WorkbenchError) {
        guard tasks >= 1 else { throw WorkbenchError("a job needs at least 1 task") }
        guard tasks <= count else {
            throw WorkbenchError("\(tasks) tasks are more than the \(count) \(things): some tasks would have nothing to do")
        }
    }

    /// Refuses a path or value with a control character before it reaches a script, naming what it is.
    private static func checkScriptValues(_ values: [(String, String)]) throws(WorkbenchError) {
        for (value, what) in values {
            do {
                try SlurmJob.checkScriptValue(value, what: what)
            } catch {
                throw WorkbenchError(path: error.path, reason: error.reason)
            }
        }
    }

    private static func resources(_ request: SlurmRequest) throws(WorkbenchError) -> SlurmResources {
        try WorkbenchError.passingOn {
            try SlurmResources(partition: request.partition, timeLimit: request.timeLimit, cpusPerTask: request.cpusPerTask)
        }
    }

    private static func script(_ job: SlurmJob) throws(WorkbenchError) -> String {
        do {
            return try job.script()
        } catch {
            throw error.path.map { WorkbenchError(path: $0, reason: error.reason) } ?? WorkbenchError(error.reason)
        }
    }

    /// The binary the tasks run: the one given, else this one (an installed `workbench` when run as one).
    private static func executable(_ request: SlurmRequest) throws(WorkbenchError) -> String {
        if let explicit = request.executable { return ShardedLabeling.absolutePath(explicit) }
        guard let url = Bundle.main.executableURL else { throw WorkbenchError("cannot tell where this workbench binary is") }
        return url.resolvingSymlinksInPath().path
    }
}
