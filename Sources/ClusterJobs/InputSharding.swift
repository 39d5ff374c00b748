import FileFormats
import Foundation

/// The part of its inputs a sharded `features`, `label` or `evaluate` works on: the same split in every task of a
/// job, balanced by the work each input costs.
public enum InputSharding {
    /// The shard from `--shard I/N`, else from a Slurm array task's or a Kubernetes Indexed Job's variables, else
    /// nil (every input).
    public static func resolve(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(WorkbenchError) -> (shard: Shard, source: ShardSource)?
    {
        // A shard's errors name no file.
        try WorkbenchError.passingOn { try Shard.resolve(option: option, environment: environment) }
    }

    /// What embedding one image costs beside its decoding, in bytes of JPEG decoded in the same time: measured
    /// here, a 35 kB photo took 8 ms of CPU per image (almost all network) and a 4.4 MB, 10.6-megapixel one 49 ms,
    /// so a megabyte decodes in about 9 ms and the network costs about what decoding 1 MB does. With it, a shard
    /// of many small images and one of a few huge photos take about the same time.
    public static let imageCostInBytes: Int64 = 1_000_000

    /// The positions of `shard`'s images among `paths` (in order), balanced by file size plus `imageCostInBytes`.
    public static func imagePositions(_ paths: [String], shard: Shard) -> [Int] {
        ShardAssignment.positions(in: shard, of: paths.map { WeightedInput(path: $0, weight: InputWeight.bytes(of: $0) + imageCostInBytes) })
    }

    /// `shard`'s images among `paths`, in order.
    public static func images(_ paths: [String], shard: Shard) -> [String] {
        imagePositions(paths, shard: shard).map { paths[$0] }
    }

    /// `shard`'s movies among `paths`, in order, balanced by size on disk (a video file's bytes, a frames folder's
    /// total): for one encoder preset, bytes follow running time, and a `stat` costs nothing beside an ffprobe.
    public static func movies(_ paths: [String], shard: Shard) -> [String] {
        ShardAssignment.positions(in: shard, of: paths.map { WeightedInput(path: $0, weight: InputWeight.bytes(of: $0)) }).map { paths[$0] }
    }
}
