import ArgumentParser
import Foundation
import Workbench

struct ReviewOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Write an HTML page: a timeline and a player per movie.", valueName: "file"))
    var html: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Write WebVTT subtitles, one cue per labelled stretch (a folder for several movies).", valueName: "file-or-folder"))
    var vtt: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Write a review copy with labels and confidences burned in (a folder for several movies).", valueName: "file-or-folder"))
    var annotate: String?

    var isRequested: Bool { html != nil || vtt != nil || annotate != nil }

    func validate(movieCount: Int) throws {
        for (name, destination) in [("--vtt", vtt), ("--annotate", annotate)] {
            guard let destination else { continue }
            var isDirectory: ObjCBool = false
            let isFolder = FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory) && isDirectory.boolValue
            if movieCount > 1 && !isFolder { throw ValidationError("\(name) takes an existing folder when labelling several movies") }
            if !isFolder { try WritableOutput.check(destination) }
        }
        if let html { try WritableOutput.check(html) }
    }
}
