import Foundation
import Workbench

/// What `sync` prints: a line per phase with its length and who holds, or (`--json`) the plan.
enum SyncRendering {
    /// "side.mp4: 4 phases, 5.20 s (130 frames at 25 fps)", then per phase "  address  1.20 s: b.mp4 holds 0.32 s".
    static func text(_ result: SyncResult, videos: [String]) -> String {
        let plan = result.plan
        var text =
            "\(DisplayText.terminal(result.output)): \(plan.phases.count) phases, \(seconds(plan.duration)) (\(plan.outputFrameCount) frames at "
            + "\(rate(plan.framesPerSecond)) fps), rendered in \(seconds(result.renderSeconds))\n"
        // Names in their terminal form: a line feed or tab in a label or a video's name stays inside its field.
        let labels = plan.phases.map { DisplayText.terminal($0.label) }
        let width = labels.map(\.count).max() ?? 0
        for (phase, shown) in zip(plan.phases, labels) {
            let holds = zip(videos, phase.segments).filter { $0.1.holdFrameCount > 0 }.map { video, segment in
                "\(DisplayText.terminal(video)) holds \(seconds(Double(segment.holdFrameCount) / plan.framesPerSecond))"
            }
            let label = shown + String(repeating: " ", count: max(0, width - shown.count))
            text +=
                "  \(label)  \(seconds(Double(phase.outputFrameCount) / plan.framesPerSecond))"
                + (holds.isEmpty ? "\n" : ": " + holds.joined(separator: ", ") + "\n")
        }
        return text
    }

    /// The warning for a phase file used with `--ignore-phase-video` although it names another input.
    static func warning(_ mismatch: PhaseFileVideos.Mismatch) -> String {
        "warning: \(mismatch.phaseFile) names the video \"\(mismatch.named)\", which is video \(mismatch.namedInput + 1) (\(mismatch.namedVideo)); "
            + "its phases are used for video \(mismatch.input + 1) (\(mismatch.video)) as --ignore-phase-video asks"
    }

    /// `sync --json`: one object.
    struct Output: Encodable {
        struct Segment: Encodable {
            let video: String
            let firstFrame: Int
            let frames: Int
            let outputFrames: Int
            let holdFrames: Int
        }
        struct Phase: Encodable {
            let label: String
            let start: Double
            let firstFrame: Int
            let frames: Int
            let inputs: [Segment]
        }
        let output: String
        let framesPerSecond: Double
        let frames: Int
        let duration: Double
        let order: [String]
        let phases: [Phase]

        init(_ result: SyncResult, videos: [String]) {
            let plan = result.plan
            output = result.output
            framesPerSecond = plan.framesPerSecond
            frames = plan.outputFrameCount
            duration = plan.duration
            order = plan.order
            phases = plan.phases.map { phase in
                Phase(
                    label: phase.label, start: Double(phase.outputFirstFrame) / plan.framesPerSecond, firstFrame: phase.outputFirstFrame,
                    frames: phase.outputFrameCount,
                    inputs: zip(videos, phase.segments).map { video, segment in
                        Segment(
                            video: video, firstFrame: segment.firstFrame, frames: segment.frameCount,
                            outputFrames: segment.outputFrameCount, holdFrames: segment.holdFrameCount)
                    })
            }
        }
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
    private static func rate(_ value: Double) -> String {
        abs(value - value.rounded()) < 1e-9 ? String(Int(value.rounded())) : String(format: "%.3f", value)
    }
}
