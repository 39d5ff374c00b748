import ArgumentParser
import Workbench

struct TraceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Draw a ball's flight over a video: a curve through three points, growing from a chosen moment.",
        discussion: """
            The curve is the quadratic through the three --points (the video's pixels, x to the right and y down \
            from the top-left corner, each inside the frame): it starts at the first, passes the second halfway and \
            ends at the third. From --from seconds it grows over --duration seconds, then stays to the end. --color \
            takes a name (yellow, red, orange, green, lime, cyan, blue, magenta, white, black) or #RRGGBB.

            Examples:
              workbench trace a.mp4 --from 1 --points "20,100 60,20 100,100" -o flight.mp4
              workbench trace a.mp4 --from 1 --points "9,9 50,5 90,9" --color red -o r.mp4
              workbench trace a.mp4 --from 0 --points "0,0 50,9 99,0" --duration 2 -o s.mp4
              workbench trace a.mp4 --from 1 --points "9,99 60,9 99,99" --width 6 -o w.mp4
              workbench trace a.mp4 --from 1 --points "9,99 60,9 99,99" --json -o t.mp4

            Docs: docs/phases-sync-trace.md
            """)

    @Argument(help: ArgumentHelp("The video to draw on.", valueName: "video"))
    var video: String

    @Option(name: .long, help: ArgumentHelp("When the curve starts growing, in seconds.", valueName: "seconds"))
    var from: Double

    @Option(name: .long, help: ArgumentHelp("Three points \"x1,y1 x2,y2 x3,y3\": start, a point passed halfway, end.", valueName: "points"))
    var points: String

    @Option(name: .long, help: ArgumentHelp("How long the curve grows, in seconds.", valueName: "seconds"))
    var duration: Double = TraceRequest.defaultDuration

    @Option(name: .long, help: ArgumentHelp("The curve's colour: a name or #RRGGBB.", valueName: "color"))
    var color: String = "yellow"

    @Option(name: .long, help: ArgumentHelp("The stroke's width in pixels (default: 1/120 of the height, at least 3).", valueName: "pixels"))
    var width: Double?

    @Option(name: .shortAndLong, help: ArgumentHelp("The video to write (.mp4, .m4v, .mov or .mkv).", valueName: "file"))
    var output: String

    @Flag(help: "Print the curve as JSON: its points, control point, and each frame's share of it and tip.")
    var json = false

    func validate() throws {
        guard let parsed = OverlayPoint.list(from: points), parsed.count == 3 else {
            throw ValidationError("--points must be three points \"x1,y1 x2,y2 x3,y3\" (numbers), got \"\(points)\"")
        }
        guard from.isFinite, from >= 0 else { throw ValidationError("--from must be a time in seconds, 0 or more, got \(from)") }
        guard duration.isFinite, duration > 0, duration <= 86_400 else {
            throw ValidationError("--duration must be more than 0 and at most 86400 seconds, got \(duration)")
        }
        guard OverlayColor(color) != nil else {
            throw ValidationError("--color must be a name (\(OverlayColor.names.map(\.name).joined(separator: ", "))) or #RRGGBB, got \"\(color)\"")
        }
        if let width, !(width.isFinite && width > 0 && width <= 1000) {
            throw ValidationError("--width must be more than 0 and at most 1000 pixels, got \(width)")
        }
    }

    func run() throws {
        try Console.run {
            let request = TraceRequest(
                video: video, points: OverlayPoint.list(from: points) ?? [], start: from, duration: duration,
                color: OverlayColor(color) ?? TraceRequest.defaultColor, strokeWidth: width, output: output)
            let bar = RenderProgress(label: output)
            let result = try TraceWorkflow.run(request) { event in
                if case .rendering(let share) = event { bar.update(share) }
            }
            bar.finish()
            Console.output(json ? JSONLines.line(TraceRendering.Output(result, video: video)) : TraceRendering.text(result))
        }
    }
}
