import DetectionAnnotations
import Foundation
import ImageCodecs
import XCTest
import _TestSupport

/// The reader on small folders written by each test: Create ML's layout, `detect --json`'s shape, negatives,
/// and every refusal as one line naming the annotations file and the entry.
final class AnnotationReaderTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = try WorkbenchBinary.temporaryFolder().path
        // 64 × 48 and 30 × 40 pictures, one in a subfolder, and one picture no entry will name.
        try writePicture("a.png", width: 64, height: 48)
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        try writePicture("sub/b.png", width: 30, height: 40)
        try writePicture("c.png", width: 10, height: 10)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func writePicture(_ name: String, width: Int, height: Int) throws {
        let image = RGBImage(width: width, height: height, pixels: [UInt8](repeating: 90, count: width * height * 3))
        try Data(try PNGEncoder.encode(image, name: name)).write(to: URL(fileURLWithPath: folder + "/" + name))
    }

    private var annotationsFile: String { folder + "/annotations.json" }

    private func writeAnnotations(_ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: annotationsFile))
    }

    /// The error reading `text` gives: one line, naming the annotations file.
    private func refusal(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try writeAnnotations(text)
        do {
            let set = try AnnotationReader.read(folder: folder)
            XCTFail("read \(set.images.count) pictures instead of refusing: \(text)", file: file, line: line)
            return ""
        } catch {
            XCTAssertEqual(error.path, annotationsFile, file: file, line: line)
            XCTAssertFalse(error.description.contains("\n"), "not one line: \(error.description)", file: file, line: line)
            return error.reason
        }
    }

    private func assertRefused(_ text: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let reason = try refusal(text, file: file, line: line)
        XCTAssertTrue(reason.contains(expected), "reason \"\(reason)\" lacks \"\(expected)\"", file: file, line: line)
    }

    /// An entry of `a.png` with one box of these coordinates.
    private func box(_ coordinates: String, label: String = "dog") -> String {
        #"[{"image": "a.png", "annotations": [{"label": "\#(label)", "coordinates": {\#(coordinates)}}]}]"#
    }

    func testCreateMLFolderReadsBoxesAsEdgesWithSizesLabelsAndNegatives() throws {
        try writeAnnotations(
            """
            [
              {"image": "sub/b.png", "annotations": [{"label": "cat", "coordinates": {"x": 15, "y": 20, "width": 10, "height": 8}}]},
              {"image": "a.png", "annotations": [
                {"label": "dog", "coordinates": {"x": 32.5, "y": 24, "width": 20, "height": 10}, "extra": true},
                {"label": "10", "coordinates": {"x": 63.5, "y": 47.5, "width": 2, "height": 2}},
                {"label": "2", "coordinates": {"x": 5, "y": 5, "width": 4, "height": 4}}]}
            ]
            """)
        let set = try AnnotationReader.read(folder: folder)
        XCTAssertEqual(set.file, annotationsFile)
        XCTAssertEqual(set.images.map(\.name), ["sub/b.png", "a.png"])
        XCTAssertEqual(set.images.map(\.path), [folder + "/sub/b.png", folder + "/a.png"])
        XCTAssertEqual(set.images.map(\.size), [ImageSize(width: 30, height: 40), ImageSize(width: 64, height: 48)])
        XCTAssertEqual(set.images[0].objects, [ObjectAnnotation(label: "cat", box: CornerBox(left: 10, top: 16, right: 20, bottom: 24))])
        XCTAssertEqual(set.images[1].objects[0], ObjectAnnotation(label: "dog", box: CornerBox(left: 22.5, top: 19, right: 42.5, bottom: 29)))
        // Half a pixel past the bottom-right corner: within the tolerance, cut to the picture.
        XCTAssertEqual(set.images[1].objects[1].box, CornerBox(left: 62.5, top: 46.5, right: 64, bottom: 48))
        XCTAssertEqual(set.labels, ["2", "10", "cat", "dog"])
        XCTAssertEqual(set.objectCount, 4)
        XCTAssertEqual(set.negatives, [AnnotatedImage(path: folder + "/c.png", name: "c.png", size: ImageSize(width: 10, height: 10), objects: [])])
        XCTAssertEqual(set.notes, ["\(folder!)/c.png: no entry in \(annotationsFile): a negative (a picture without objects)"])
        XCTAssertEqual(set.allImages.count, 3)
    }

    func testDetectJSONReadsBackWithItsConfidenceIgnoredAndAnEmptyEntryKept() throws {
        // detect --json's exact shape (pixels to a hundredth), as written by `cd folder && workbench detect . --json`.
        try writeAnnotations(
            """
            [
            {"image":"./a.png","annotations":[{"label":"person","confidence":0.87109375,"coordinates":{"x":31.25,"y":20.5,"width":12.5,"height":30.01}}]},
            {"image":"./sub/b.png","annotations":[]},
            {"image":"\(folder!)/c.png","annotations":[{"label":"person","confidence":0.5,"coordinates":{"x":5,"y":5,"width":10,"height":10}}]}
            ]
            """)
        let set = try AnnotationReader.read(file: annotationsFile)
        XCTAssertEqual(set.images.map(\.path), [folder + "/./a.png", folder + "/./sub/b.png", folder + "/c.png"])
        XCTAssertEqual(
            set.images[0].objects, [ObjectAnnotation(label: "person", box: CornerBox(centerX: 31.25, centerY: 20.5, width: 12.5, height: 30.01))])
        XCTAssertEqual(set.images[1].objects, [])
        XCTAssertEqual(set.images[2].objects[0].box, CornerBox(left: 0, top: 0, right: 10, bottom: 10))
        XCTAssertEqual(set.negatives, [])
        XCTAssertEqual(set.notes, [])
        XCTAssertEqual(set.labels, ["person"])
    }

    func testAFileReadByItselfListsNoNegativesAndWalksNothing() throws {
        // c.png has no entry and broken.jpg cannot be read: as a folder, a negative and a note; as a file, neither.
        try Data([0xFF, 0xD8, 0xFF, 0x00]).write(to: URL(fileURLWithPath: folder + "/broken.jpg"))
        try writeAnnotations(#"[{"image": "a.png", "annotations": []}, {"image": "sub/b.png", "annotations": []}]"#)
        let file = try AnnotationReader.read(file: annotationsFile)
        XCTAssertEqual(file.images.map(\.name), ["a.png", "sub/b.png"])
        XCTAssertEqual(file.negatives, [])
        XCTAssertEqual(file.notes, [])
        let folderSet = try AnnotationReader.read(folder: folder)
        XCTAssertEqual(folderSet.images, file.images)
        XCTAssertEqual(folderSet.negatives.map(\.name), ["c.png"])
        XCTAssertEqual(folderSet.notes.count, 2, "\(folderSet.notes)")
    }

    func testControlCharactersInNamesAndLabelsAreRefused() throws {
        // A NUL would cut the path short in stat and open ("a.png" would be read); a newline would split a note.
        try assertRefused(
            #"[{"image": "a.png\u0000.txt", "annotations": []}]"#,
            "entry 1: \"image\" holds the control character U+0000: a picture's name is one line of printable text")
        try assertRefused(
            #"[{"image": "a.png", "annotations": []}, {"image": "sub/\nb.png", "annotations": []}]"#,
            "entry 2: \"image\" holds the control character U+000A")
        try assertRefused(#"[{"image": "\u001f", "annotations": []}]"#, "entry 1: \"image\" holds the control character U+001F")
        try assertRefused(
            box(#""x": 10, "y": 10, "width": 4, "height": 4"#, label: #"dog\ncat"#),
            "entry 1 (\"a.png\"), box 1: \"label\" holds the control character U+000A: a label is one line of printable text")
        try assertRefused(
            box(#""x": 10, "y": 10, "width": 4, "height": 4"#, label: #"dog\u0000"#), "box 1: \"label\" holds the control character U+0000")
        try assertRefused(
            box(#""x": 10, "y": 10, "width": 4, "height": 4"#, label: "dog\u{7F}"), "box 1: \"label\" holds the control character U+007F")
        // Printable text beyond ASCII is a name like any other.
        try writeAnnotations(box(#""x": 10, "y": 10, "width": 4, "height": 4"#, label: "chien ✓ é"))
        XCTAssertEqual(try AnnotationReader.read(folder: folder).labels, ["chien ✓ é"])
    }

    func testDetectOutputForAVideoIsRefusedWithTheHintThatPicturesMakeAnnotations() throws {
        try writeAnnotations("{\"video\": \"movie.mp4\", \"samples\": [], \"clips\": []}")
        XCTAssertThrowsError(try AnnotationReader.read(folder: folder)) { error in
            let refused = error as? AnnotationError
            XCTAssertEqual(refused?.reason, "this is detect's output for a video; annotations are an array of pictures")
            XCTAssertEqual(refused?.hint, .annotatePictures)
        }
    }

    func testMalformedDocumentsAreRefusedWithTheirReason() throws {
        try assertRefused("[{\"image\": \"a.png\",", "not valid JSON: line 1, column 20")
        try assertRefused("{\"image\": \"a.png\"}", "expected an array of entries {\"image\", \"annotations\"}, found an object")
        try assertRefused("{\"video\": \"movie.mp4\", \"samples\": [], \"clips\": []}", "this is detect's output for a video")
        try assertRefused("[{\"video\": \"movie.mp4\"}]", "entry 1: a video's detect output")
        try assertRefused("[[]]", "entry 1: expected an object {\"image\", \"annotations\"}, found an array")
        try assertRefused("[{\"annotations\": []}]", "entry 1: no \"image\"")
        try assertRefused("[{\"image\": 3, \"annotations\": []}]", "entry 1: \"image\" must be a string, found a number")
        try assertRefused("[{\"image\": \"\", \"annotations\": []}]", "entry 1: \"image\" is empty")
        try assertRefused("[{\"image\": \"a.png\"}]", "entry 1 (\"a.png\"): no \"annotations\"")
        try assertRefused("[{\"image\": \"a.png\", \"annotations\": {}}]", "entry 1 (\"a.png\"): \"annotations\" must be an array, found an object")
        try assertRefused(
            "[{\"image\": \"a.png\", \"annotations\": [\"dog\"]}]",
            "entry 1 (\"a.png\"), box 1: expected an object {\"label\", \"coordinates\"}, found a string")
        try assertRefused("[{\"image\": \"a.png\", \"annotations\": [{\"coordinates\": {}}]}]", "entry 1 (\"a.png\"), box 1: no \"label\"")
        try assertRefused("[{\"image\": \"a.png\", \"annotations\": [{\"label\": null}]}]", "box 1: \"label\" must be a string, found null")
        try assertRefused(box(#""x": 1, "y": 1, "width": 1, "height": 1"#, label: ""), "box 1: \"label\" is empty")
        try assertRefused("[{\"image\": \"a.png\", \"annotations\": [{\"label\": \"dog\"}]}]", "box 1 (\"dog\"): no \"coordinates\"")
        try assertRefused(
            "[{\"image\": \"a.png\", \"annotations\": [{\"label\": \"dog\", \"coordinates\": [1, 2, 3, 4]}]}]",
            "box 1 (\"dog\"): \"coordinates\" must be an object {\"x\", \"y\", \"width\", \"height\"}, found an array")
        try assertRefused(box(#""x": 1, "y": 1, "width": 1"#), "box 1 (\"dog\"): no \"height\" in \"coordinates\"")
        try assertRefused(box(#""x": "1", "y": 1, "width": 1, "height": 1"#), "box 1 (\"dog\"): \"x\" must be a number, found a string")
        try assertRefused(box(#""x": 1e999, "y": 1, "width": 1, "height": 1"#), "box 1 (\"dog\"): \"x\" is too large to be a pixel coordinate")
        try assertRefused(
            box(#""x": 1.7e308, "y": 1, "width": 1.7e308, "height": 1"#), "box 1 (\"dog\"): its edges are too large to be pixel coordinates")
    }

    func testEmptyAndNegativeBoxesAreRefused() throws {
        try assertRefused(box(#""x": 10, "y": 10, "width": 0, "height": 5"#), "entry 1 (\"a.png\"), box 1 (\"dog\"): width 0 is not positive")
        try assertRefused(box(#""x": 10, "y": 10, "width": 5, "height": -2.5"#), "box 1 (\"dog\"): height -2.50 is not positive")
        // Found by the fuzz harness: a positive size that vanishes from the edges (1 ± 5e-301 is 1).
        try assertRefused(
            box(#""x": 10, "y": 1, "width": 5, "height": 1e-300"#),
            "box 1 (\"dog\"): width 5 and height 1e-300 are too small to be told apart at its centre: the box has no size")
        // Issue 45, item 9: a centre of 1e308 swallows any size too, but the size is not what is wrong.
        for (coordinates, name) in [
            (#""x": 1e308, "y": 1, "width": 10, "height": 10"#, "x"), (#""x": 1, "y": -1e308, "width": 10, "height": 10"#, "y"),
        ] {
            let reason = try refusal(box(coordinates))
            XCTAssertTrue(
                reason.contains("box 1 (\"dog\"): \"\(name)\" \(name == "x" ? "1e+308" : "-1e+308") is too large to be a pixel coordinate"), reason)
            XCTAssertFalse(reason.contains("too small"), reason)
        }
    }

    /// Issue 45, item 9: an entry naming a symbolic link that loops is not "no such picture": the loop is named.
    func testAPictureNameThatLoopsIsNamedAsALoop() throws {
        try FileManager.default.createSymbolicLink(atPath: folder + "/loop.png", withDestinationPath: "loop.png")
        try assertRefused(
            "[{\"image\": \"loop.png\", \"annotations\": []}]",
            "entry 1 (\"loop.png\"): cannot read the picture \(folder!)/loop.png: too many levels of symbolic links (ELOOP)")
    }

    /// Issue 44, item 8: a box overshooting its picture by a few pixels (as annotation tools let one) is cut to it
    /// and listed, up to 2 % of the side and at least 4 px (`overshootLimit`); further out it is refused.
    func testBoxesOvershootingByAFewPixelsAreCutAndListedAndFurtherOutRefused() throws {
        // 64 × 48: the right edge at 66 is 2 px out, within the 4 px limit: cut and listed.
        try writeAnnotations(box(#""x": 60, "y": 24, "width": 12, "height": 10"#))
        let set = try AnnotationReader.read(folder: folder)
        XCTAssertEqual(set.images[0].objects[0].box, CornerBox(left: 54, top: 19, right: 64, bottom: 29))
        XCTAssertEqual(
            set.clippedBoxes,
            [
                ClippedBox(
                    entry: 1, image: "a.png", box: 1, label: "dog", overhang: 2,
                    pictureSize: ImageSize(width: 64, height: 48))
            ])
        // Exactly one pixel out is cut silently, as before.
        try writeAnnotations(box(#""x": 5, "y": 24, "width": 12, "height": 10"#))
        let silent = try AnnotationReader.read(folder: folder)
        XCTAssertEqual(silent.images[0].objects[0].box, CornerBox(left: 0, top: 19, right: 11, bottom: 29))
        XCTAssertEqual(silent.clippedBoxes, [])
        // 5 px out is beyond the limit.
        try assertRefused(
            box(#""x": 60, "y": 24, "width": 18, "height": 10"#),
            "entry 1 (\"a.png\"), box 1 (\"dog\"): edges left 51, top 19, right 69, bottom 29 reach 5 px outside the 64 × 48 picture "
                + "(at most 4 px is cut off; x and y are the box's centre)")
        try assertRefused(box(#""x": 10, "y": 2, "width": 6, "height": 15"#), "reach 5.50 px outside the 64 × 48 picture")
        // Within the limit but wholly beside the picture.
        try assertRefused(
            box(#""x": -2, "y": 24, "width": 2, "height": 10"#),
            "box 1 (\"dog\"): edges left -3, top 19, right -1, bottom 29 lie outside the 64 × 48 picture")
        XCTAssertEqual(AnnotationDocument.overshootLimit(side: 640), 12.8, accuracy: 1e-12)
        XCTAssertEqual(AnnotationDocument.overshootLimit(side: 100), 4)
    }

    /// Issue 44, item 8: a file with several problems, of shape and against the pictures, is refused with all of
    /// them in entry order, one a line; past `reportedProblems` the rest are counted.
    func testEveryProblemOfAFileIsReportedInEntryOrder() throws {
        try writeAnnotations(
            """
            [{"image": "missing.png", "annotations": []},
             {"image": "a.png", "annotations": [{"label": "dog", "coordinates": {"x": 10, "y": 10, "width": 0, "height": 5}},
                                                {"label": "", "coordinates": {"x": 1, "y": 1, "width": 1, "height": 1}},
                                                {"label": "cat", "coordinates": {"x": 60, "y": 24, "width": 30, "height": 10}}]},
             {"image": "sub/b.png", "annotations": [{"label": "cat", "coordinates": {"x": 15, "y": 20, "width": 4, "height": 4}}]},
             {"annotations": []}]
            """)
        XCTAssertThrowsError(try AnnotationReader.read(folder: folder)) { error in
            XCTAssertEqual(
                "\(error)",
                """
                \(annotationsFile): 4 problems:
                  entry 1 ("missing.png"): no such picture \(folder!)/missing.png (names are relative to the folder of \(annotationsFile))
                  entry 2 ("a.png"), box 1 ("dog"): width 0 is not positive: a box needs a size (x and y are its centre)
                  entry 2 ("a.png"), box 2: "label" is empty
                  entry 4: no "image" (the picture's name)
                """)
        }
        // Box 3 of entry 2 (15 px out) is checked against the picture only once its entry has no problem of shape;
        // a well-formed entry's refused boxes are all reported.
        try writeAnnotations(
            """
            [{"image": "a.png", "annotations": [{"label": "cat", "coordinates": {"x": 60, "y": 24, "width": 30, "height": 10}},
                                                {"label": "dog", "coordinates": {"x": 10, "y": -8, "width": 4, "height": 4}}]}]
            """)
        XCTAssertThrowsError(try AnnotationReader.read(folder: folder)) { error in
            let lines = "\(error)".components(separatedBy: "\n")
            XCTAssertEqual(lines.count, 3, "\(error)")
            XCTAssertEqual(lines[0], "\(annotationsFile): 2 problems:")
            XCTAssertTrue(lines[1].hasPrefix("  entry 1 (\"a.png\"), box 1 (\"cat\"): "), lines[1])
            XCTAssertTrue(lines[2].hasPrefix("  entry 1 (\"a.png\"), box 2 (\"dog\"): "), lines[2])
        }
        let many = "[" + (1...25).map { _ in #"{"image": "missing.png", "annotations": []}"# }.joined(separator: ",") + "]"
        try writeAnnotations(many)
        XCTAssertThrowsError(try AnnotationReader.read(folder: folder)) { error in
            let lines = "\(error)".components(separatedBy: "\n")
            XCTAssertEqual(lines.first, "\(annotationsFile): 25 problems (the first 20 below):")
            XCTAssertEqual(lines.count, 1 + 20 + 1)
            XCTAssertEqual(lines.last, "  and 5 more")
        }
    }

    func testUnknownPicturesDuplicatesAndUnreadablePicturesAreRefused() throws {
        try assertRefused(
            "[{\"image\": \"missing.png\", \"annotations\": []}]",
            "entry 1 (\"missing.png\"): no such picture \(folder!)/missing.png (names are relative to the folder of \(annotationsFile))")
        try assertRefused("[{\"image\": \"sub\", \"annotations\": []}]", "entry 1 (\"sub\"): \(folder!)/sub is not a picture file (a folder)")
        try assertRefused(
            "[{\"image\": \"a.png\", \"annotations\": []}, {\"image\": \"c.png\", \"annotations\": []}, {\"image\": \"./a.png\", \"annotations\": []}]",
            "entry 3 (\"./a.png\"): the same picture as entry 1; give each picture one entry")
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: folder + "/text.jpg"))
        try assertRefused(
            "[{\"image\": \"text.jpg\", \"annotations\": []}]",
            "entry 1 (\"text.jpg\"): \(folder!)/text.jpg: not a picture Workbench can read (JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP)")
    }

    func testAFolderWithoutAnnotationsAndAMissingFileAreOneLine() throws {
        XCTAssertThrowsError(try AnnotationReader.read(folder: folder)) { error in
            XCTAssertEqual(
                "\(error)", "\(folder!): no annotations.json (a Create ML object-detection folder holds its pictures and one annotations.json)")
        }
        XCTAssertThrowsError(try AnnotationReader.read(file: folder + "/boxes.json")) { error in
            XCTAssertEqual("\(error)", "\(folder!)/boxes.json: no such file")
        }
    }

    func testAPictureThatCannotBeReadWithoutAnEntryIsANoteNotAnError() throws {
        try Data([0xFF, 0xD8, 0xFF, 0x00]).write(to: URL(fileURLWithPath: folder + "/broken.jpg"))
        try writeAnnotations("[]")
        let set = try AnnotationReader.read(folder: folder)
        XCTAssertEqual(Set(set.negatives.map(\.name)), ["a.png", "c.png", "sub/b.png"])
        XCTAssertTrue(
            set.notes.contains {
                $0.hasPrefix("\(folder!)/broken.jpg: truncated or corrupt JPEG data") && $0.hasSuffix("(a picture without an entry, left out)")
            },
            "\(set.notes)")
        XCTAssertEqual(set.labels, [])
    }
}
