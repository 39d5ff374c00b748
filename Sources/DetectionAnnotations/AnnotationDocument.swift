import FileFormats
import Foundation
import ImageCodecs

/// The contents of an annotations file, checked for shape but not yet against the pictures: what the bytes say,
/// and nothing that needs the disk (so the fuzz harness drives exactly this).
///
/// Two writers are read alike, because they write the same shape:
/// - Create ML's object-detection `annotations.json`: an array of `{"image": NAME, "annotations": [{"label": L,
///   "coordinates": {"x", "y", "width", "height"}}]}`, x and y the box's centre, all in pixels;
/// - `workbench detect --json` on pictures: the same, each annotation with a `confidence` too, which is ignored
///   (a person corrects a detector's output and trains on it; what they kept is what is there).
///
/// Members this reader does not know are ignored (other tools add their own). Every problem names the entry
/// (1-based, in file order) and, for a box, its number and label; a file with several problems is refused with all
/// of them, up to `reportedProblems` (`AnnotationProblems`), not only the first.
public struct AnnotationDocument: Sendable, Equatable {
    /// One entry: a picture's name and its boxes, as written.
    public struct Entry: Sendable, Equatable {
        /// The entry's place in the file, from 1, for messages.
        public var number: Int
        /// The picture's name as written (relative to the annotations' folder, or absolute).
        public var image: String
        /// The boxes, converted to edges, with positive width and height, not yet checked against the picture.
        public var objects: [ObjectAnnotation]
    }

    /// How far (in pixels) a box may reach past an edge of its picture and be cut to it silently. One pixel: tools
    /// that round a box's centre and size to whole pixels, or that count a box's last pixel inclusively, can put an
    /// edge one pixel out.
    public static let outsideTolerance = 1.0

    /// How far (in pixels) a box may reach past an edge of a picture `side` pixels across that way (its width for
    /// the left and right edges, its height for the top and bottom) and still be accepted, cut to the picture and
    /// listed (`AnnotationSet.clippedBoxes`, which the command warns about once): 2 % of the side, at least 4 px.
    /// Annotation tools let a box dragged to the edge overshoot it by a few pixels of the screen, more on a large
    /// picture shown shrunk (2 % of a 4000-pixel photo is 80 px, of a 640-pixel frame 12.8 px); a box further out
    /// is one made for another picture (or a rotated one) and is refused.
    public static func overshootLimit(side: Int) -> Double { max(4, 0.02 * Double(side)) }

    /// The most problems a refusal lists (`AnnotationProblems`); it counts the rest.
    public static let reportedProblems = 20

    /// The entries, in file order.
    public var entries: [Entry]

    /// Parses the bytes of an annotations file; `file` only names it in errors.
    public static func parse(_ bytes: [UInt8], file: String) throws(AnnotationError) -> AnnotationDocument {
        let elements = try elements(bytes, file: file)
        var problems = AnnotationProblems(file: file)
        let document = parse(elements, file: file, problems: &problems)
        try problems.check()
        return document
    }

    /// The entries of `elements` that are well formed; the others' problems (each entry's, every box's) go into
    /// `problems`, so a reader can go on checking the rest against their pictures and report everything at once.
    public static func parse(_ elements: [JSONValue], file: String, problems: inout AnnotationProblems) -> AnnotationDocument {
        var entries: [Entry] = []
        for (index, element) in elements.enumerated() {
            var boxProblems: [AnnotationError] = []
            do {
                let parsed = try entry(element, number: index + 1, file: file, boxProblems: &boxProblems)
                if boxProblems.isEmpty { entries.append(parsed) }
            } catch {
                problems.add(error, entry: index + 1)
            }
            for problem in boxProblems { problems.add(problem, entry: index + 1) }
        }
        return AnnotationDocument(entries: entries)
    }

    /// The JSON array of an annotations file's bytes; the document-level refusals (not JSON, not an array).
    public static func elements(_ bytes: [UInt8], file: String) throws(AnnotationError) -> [JSONValue] {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw AnnotationError(path: file, reason: "not valid JSON: \(error.description)")
        }
        guard let elements = document.arrayValue else {
            if document.objectValue?["video"] != nil {
                throw AnnotationError(
                    path: file, reason: "this is detect's output for a video; annotations are an array of pictures",
                    hint: .annotatePictures)
            }
            throw AnnotationError(path: file, reason: "expected an array of entries {\"image\", \"annotations\"}, found \(document.kindDescription)")
        }
        return elements
    }

    private static func entry(
        _ element: JSONValue, number: Int, file: String,
        boxProblems: inout [AnnotationError]
    ) throws(AnnotationError) -> Entry {
        guard let members = element.objectValue else {
            throw AnnotationError(
                path: file, reason: "entry \(number): expected an object {\"image\", \"annotations\"}, found \(element.kindDescription)")
        }
        if members["video"] != nil, members["image"] == nil {
            throw AnnotationError(path: file, reason: "entry \(number): a video's detect output; annotations name pictures (\"image\")")
        }
        guard let imageValue = members["image"] else {
            throw AnnotationError(path: file, reason: "entry \(number): no \"image\" (the picture's name)")
        }
        guard let image = imageValue.stringValue else {
            throw AnnotationError(path: file, reason: "entry \(number): \"image\" must be a string, found \(imageValue.kindDescription)")
        }
        guard !image.isEmpty else { throw AnnotationError(path: file, reason: "entry \(number): \"image\" is empty") }
        // The C calls cut a path at a NUL and would read another file; a newline would split a note in two.
        if let control = firstControlCharacter(in: image) {
            throw AnnotationError(
                path: file,
                reason: "entry \(number): \"image\" holds the control character \(control): "
                    + "a picture's name is one line of printable text")
        }
        let place = "entry \(number) (\(quoted(image)))"
        guard let annotationsValue = members["annotations"] else {
            throw AnnotationError(path: file, reason: "\(place): no \"annotations\" (write [] for a picture without objects)")
        }
        guard let annotations = annotationsValue.arrayValue else {
            throw AnnotationError(path: file, reason: "\(place): \"annotations\" must be an array, found \(annotationsValue.kindDescription)")
        }
        var objects: [ObjectAnnotation] = []
        for (index, annotation) in annotations.enumerated() {
            do {
                objects.append(try object(annotation, place: "\(place), box \(index + 1)", file: file))
            } catch {
                boxProblems.append(error)
            }
        }
        return Entry(number: number, image: image, objects: objects)
    }

    private static func object(_ value: JSONValue, place: String, file: String) throws(AnnotationError) -> ObjectAnnotation {
        guard let members = value.objectValue else {
            throw AnnotationError(path: file, reason: "\(place): expected an object {\"label\", \"coordinates\"}, found \(value.kindDescription)")
        }
        guard let labelValue = members["label"] else { throw AnnotationError(path: file, reason: "\(place): no \"label\"") }
        guard let label = labelValue.stringValue else {
            throw AnnotationError(path: file, reason: "\(place): \"label\" must be a string, found \(labelValue.kindDescription)")
        }
        guard !label.isEmpty else { throw AnnotationError(path: file, reason: "\(place): \"label\" is empty") }
        if let control = firstControlCharacter(in: label) {
            throw AnnotationError(
                path: file, reason: "\(place): \"label\" holds the control character \(control): a label is one line of printable text")
        }
        let labelled = "\(place) (\(quoted(label)))"
        guard let coordinatesValue = members["coordinates"] else {
            throw AnnotationError(path: file, reason: "\(labelled): no \"coordinates\" {\"x\", \"y\", \"width\", \"height\"}")
        }
        guard let coordinates = coordinatesValue.objectValue else {
            throw AnnotationError(
                path: file,
                reason:
                    "\(labelled): \"coordinates\" must be an object {\"x\", \"y\", \"width\", \"height\"}, found \(coordinatesValue.kindDescription)")
        }
        var numbers: [Double] = []
        for name in ["x", "y", "width", "height"] {
            guard let member = coordinates[name] else {
                throw AnnotationError(path: file, reason: "\(labelled): no \"\(name)\" in \"coordinates\"")
            }
            // JSON has no NaN, but a literal such as 1e999 is a number too large for a Double.
            guard let number = member.doubleValue else {
                throw AnnotationError(path: file, reason: "\(labelled): \"\(name)\" must be a number, found \(member.kindDescription)")
            }
            guard number.isFinite else {
                throw AnnotationError(path: file, reason: "\(labelled): \"\(name)\" is too large to be a pixel coordinate")
            }
            numbers.append(number)
        }
        let (width, height) = (numbers[2], numbers[3])
        for (name, size) in [("width", width), ("height", height)] where !(size > 0) {
            throw AnnotationError(
                path: file, reason: "\(labelled): \(name) \(format(size)) is not positive: a box needs a size (x and y are its centre)")
        }
        let box = CornerBox(centerX: numbers[0], centerY: numbers[1], width: width, height: height)
        guard [box.left, box.top, box.right, box.bottom].allSatisfy(\.isFinite) else {
            throw AnnotationError(path: file, reason: "\(labelled): its edges are too large to be pixel coordinates")
        }
        // A centre past 2^52 has no room between whole numbers (1e308 + 5 is 1e308): it is no picture's pixel, and
        // naming its size as the fault would mislead.
        for (name, centre, side) in [("x", numbers[0], box.width), ("y", numbers[1], box.height)] where !(side > 0) && abs(centre) >= 0x1p52 {
            throw AnnotationError(
                path: file, reason: "\(labelled): \"\(name)\" \(format(centre)) is too large to be a pixel coordinate")
        }
        // A size far below the centre's precision vanishes from the edges (1 + 1e-300 is 1): no box is left.
        guard box.width > 0, box.height > 0 else {
            throw AnnotationError(
                path: file,
                reason: "\(labelled): width \(format(width)) and height \(format(height)) are too small "
                    + "to be told apart at its centre: the box has no size")
        }
        return ObjectAnnotation(label: label, box: box)
    }

    /// `entry`'s boxes checked against its picture's size (`objects(of:in:file:clipped:refused:)`); the first box
    /// refused is thrown.
    public static func objects(of entry: Entry, in size: ImageSize, file: String) throws(AnnotationError) -> [ObjectAnnotation] {
        var clipped: [ClippedBox] = [], refused: [AnnotationError] = []
        let objects = objects(of: entry, in: size, file: file, clipped: &clipped, refused: &refused)
        if let first = refused.first { throw first }
        return objects
    }

    /// `entry`'s boxes checked against its picture's size: each box is cut to the picture; one reaching more than
    /// `outsideTolerance` past an edge is added to `clipped`; one reaching more than `overshootLimit`, or with
    /// nothing left inside once cut, is refused: its error (naming `file`, the entry and the box) goes into
    /// `refused` and the box is left out. Returns the boxes kept, cut.
    public static func objects(
        of entry: Entry, in size: ImageSize, file: String, clipped: inout [ClippedBox],
        refused: inout [AnnotationError]
    ) -> [ObjectAnnotation] {
        let width = Double(size.width), height = Double(size.height)
        var objects: [ObjectAnnotation] = []
        for (index, object) in entry.objects.enumerated() {
            let box = object.box
            let place =
                "entry \(entry.number) (\(quoted(entry.image))), box \(index + 1) (\(quoted(object.label))): "
                + "edges left \(format(box.left)), top \(format(box.top)), right \(format(box.right)), bottom \(format(box.bottom))"
            let across = max(-box.left, box.right - width), down = max(-box.top, box.bottom - height)
            let (acrossLimit, downLimit) = (overshootLimit(side: size.width), overshootLimit(side: size.height))
            if across > acrossLimit || down > downLimit {
                let (reach, limit) = across > acrossLimit ? (across, acrossLimit) : (down, downLimit)
                refused.append(
                    AnnotationError(
                        path: file,
                        reason: "\(place) reach \(format(reach)) px outside the \(size.width) × \(size.height) "
                            + "picture (at most \(format(limit)) px is cut off; x and y are the box's centre)"))
                continue
            }
            var cut = object
            cut.box = box.clipped(width: width, height: height)
            // Within the limit but wholly beside the picture: nothing of it is left to learn from.
            guard cut.box.width > 0, cut.box.height > 0 else {
                refused.append(AnnotationError(path: file, reason: "\(place) lie outside the \(size.width) × \(size.height) picture"))
                continue
            }
            objects.append(cut)
            let overhang = max(across, down)
            if overhang > outsideTolerance {
                clipped.append(
                    ClippedBox(
                        entry: entry.number, image: entry.image, box: index + 1, label: object.label,
                        overhang: overhang, pictureSize: size))
            }
        }
        return objects
    }

    /// The first C0 control character (U+0000 to U+001F) or DEL (U+007F) of `text`, as `U+000A`; nil when it
    /// has none.
    static func firstControlCharacter(in text: String) -> String? {
        guard let scalar = text.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        return String(format: "U+%04X", scalar.value)
    }

    /// A name in double quotes, for messages (the terminal's escaping is the CLI's).
    static func quoted(_ text: String) -> String { "\"\(text)\"" }

    /// A coordinate for a message: whole numbers without decimals, others to two decimals, the very large and
    /// the very small in exponent form.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return abs(value) >= 0.01 && abs(value) < 1e15 ? String(format: "%.2f", value) : String(format: "%g", value)
    }
}
