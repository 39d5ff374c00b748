import Datasets
import XCTest

final class DatasetLayoutTests: XCTestCase {
    func testCreateMLLayout() throws {
        let builder = try FolderBuilder(self)
        try builder.images("cat", count: 2, prefix: "Training Data/")
        try builder.images("dog", count: 2, prefix: "Training Data/")
        try builder.images("dog", count: 1, prefix: "Testing Data/")
        let layout = try DatasetLayout.resolve(path: builder.root)
        XCTAssertEqual(layout.kind, .createML)
        XCTAssertEqual(layout.labels, ["cat", "dog"])
        XCTAssertEqual(layout.training.path, builder.root + "/Training Data")
        XCTAssertEqual(layout.testing?.labels, ["dog"])
        XCTAssertNil(layout.validation)
    }

    func testSplitFoldersLayout() throws {
        for validationName in ["val", "valid", "validation"] {
            let builder = try FolderBuilder(self)
            try builder.images("a", count: 3, prefix: "train/")
            try builder.images("b", count: 3, prefix: "train/")
            try builder.images("a", count: 1, prefix: "\(validationName)/")
            try builder.images("b", count: 1, prefix: "test/")
            try builder.file("notes.txt", [1])
            let layout = try DatasetLayout.resolve(path: builder.root)
            XCTAssertEqual(layout.kind, .splitFolders)
            XCTAssertEqual(layout.validation?.path, builder.root + "/" + validationName)
            XCTAssertEqual(layout.testing?.path, builder.root + "/test")
            XCTAssertEqual(layout.skipped.map(\.path), [builder.root + "/notes.txt"])
        }
        let trainOnly = try FolderBuilder(self)
        try trainOnly.images("a", count: 1, prefix: "train/")
        try trainOnly.images("b", count: 1, prefix: "train/")
        let layout = try DatasetLayout.resolve(path: trainOnly.root)
        XCTAssertEqual(layout.kind, .splitFolders)
        XCTAssertNil(layout.validation)
        XCTAssertNil(layout.testing)
    }

    func testPlainFolderIsTheTrainingFolder() throws {
        let builder = try FolderBuilder(self)
        try builder.images("10", count: 1)
        try builder.images("9", count: 1)
        let layout = try DatasetLayout.resolve(path: builder.root)
        XCTAssertEqual(layout.kind, .singleFolder)
        XCTAssertEqual(layout.labels, ["9", "10"])
        XCTAssertEqual(layout.training.path, builder.root)
    }

    func testErrorsNameThePathAndReason() throws {
        let builder = try FolderBuilder(self)
        XCTAssertThrowsError(try DatasetLayout.resolve(path: builder.root + "/none")) { error in
            XCTAssertEqual("\(error)", builder.root + "/none: folder does not exist")
        }
        let file = try builder.image("file.jpg")
        XCTAssertThrowsError(try DatasetLayout.resolve(path: file)) { error in
            XCTAssertEqual("\(error)", file + ": not a folder")
        }

        let one = try FolderBuilder(self)
        try one.images("only", count: 2)
        XCTAssertThrowsError(try DatasetLayout.resolve(path: one.root)) { error in
            XCTAssertEqual("\(error)", one.root + ": fewer than two labels (found 'only'); each label is a subfolder of images")
        }

        let empty = try FolderBuilder(self)
        try empty.images("cat", count: 2)
        try empty.folder("dog/nested")
        try empty.file("dog/readme.txt", [1, 2])
        XCTAssertThrowsError(try DatasetLayout.resolve(path: empty.root)) { error in
            XCTAssertEqual(
                "\(error)",
                empty.root + "/dog: label 'dog' has no pictures Workbench can read (JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP): "
                    + "1 file skipped (1 .txt)")
        }

        let unseen = try FolderBuilder(self)
        try unseen.images("cat", count: 1, prefix: "Training Data/")
        try unseen.images("dog", count: 1, prefix: "Training Data/")
        try unseen.images("bird", count: 1, prefix: "Testing Data/")
        XCTAssertThrowsError(try DatasetLayout.resolve(path: unseen.root)) { error in
            XCTAssertEqual("\(error)", unseen.root + "/Testing Data/bird: label 'bird' is not among the training labels")
        }

        let ambiguous = try FolderBuilder(self)
        try ambiguous.images("a", count: 1, prefix: "train/")
        try ambiguous.images("a", count: 1, prefix: "val/")
        try ambiguous.images("a", count: 1, prefix: "validation/")
        XCTAssertThrowsError(try DatasetLayout.resolve(path: ambiguous.root)) { error in
            XCTAssertEqual("\(error)", ambiguous.root + ": ambiguous layout: both 'val' and 'validation' exist; keep one")
        }
    }

    func testReadableImageCheck() throws {
        let builder = try FolderBuilder(self)
        try builder.images("cat", count: 2)
        try builder.images("dog", count: 3)
        let folder = try DatasetLayout.resolve(path: builder.root).training
        XCTAssertNoThrow(try DatasetLayout.requireReadableImages(in: folder, readableCounts: ["cat": 1, "dog": 3]))
        XCTAssertThrowsError(try DatasetLayout.requireReadableImages(in: folder, readableCounts: ["cat": 2, "dog": 0])) { error in
            XCTAssertEqual("\(error)", builder.root + "/dog: label 'dog' has no readable images (all 3 files failed to decode)")
        }
        XCTAssertThrowsError(try DatasetLayout.requireReadableImages(in: folder, readableCounts: ["dog": 1])) { error in
            XCTAssertTrue("\(error)".contains("label 'cat'"), "\(error)")
        }
    }
}
