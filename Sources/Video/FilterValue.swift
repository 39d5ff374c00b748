/// The one escaping of a path that goes into an ffmpeg filter graph as an option's value (`fontfile=`,
/// `textfile=`, `sendcmd`'s `f=`). Two parsers read the graph, the graph parser first: it splits filters at `,`,
/// chains at `;` and takes `[…]` as labels; the option parser then splits options at `:` and reads `'` as a quote.
/// Both take `\` as an escape. So `\`, `'` and `:` are escaped for the option parser, then `\`, `'`, `,`, `;`, `[`
/// and `]` for the graph parser: a path with any of them stays one value and adds nothing to the graph.
///
/// Files Workbench makes for a render are not named by a path at all: ffmpeg runs in the render's
/// `TemporaryFolder` and reads them by fixed relative names, so whatever `TMPDIR` holds never reaches a graph, a
/// sendcmd script or an image-sequence pattern (where `%` is syntax).
enum FilterValue {
    /// `path` escaped for both parsers.
    static func escaped(_ path: String) -> String {
        func escaped(_ text: String, _ special: Set<Character>) -> String {
            var result = ""
            for character in text {
                if special.contains(character) { result.append("\\") }
                result.append(character)
            }
            return result
        }
        return escaped(escaped(path, ["\\", "'", ":"]), ["\\", "'", ",", ";", "[", "]"])
    }
}
