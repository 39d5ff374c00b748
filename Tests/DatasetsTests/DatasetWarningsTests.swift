import Datasets
import XCTest

final class DatasetWarningsTests: XCTestCase {
    func testIdenticalFilesAcrossTrainingAndTestingAreListed() throws {
        let builder = try FolderBuilder(self)
        try builder.images("cat", count: 3, prefix: "train/")
        try builder.images("dog", count: 3, prefix: "train/")
        // Same bytes as train/cat/2.jpg under another name; and a same-size file with different bytes.
        try builder.image("test/cat/copy.jpg", seed: "train/cat/2.jpg")
        try builder.image("test/dog/other.jpg", seed: "train/cat/9.jpg")
        let layout = try DatasetLayout.resolve(path: builder.root)
        let warnings = DatasetWarnings.check(layout)
        XCTAssertEqual(
            warnings,
            [
                .duplicatesAcrossSplits(
                    firstSplit: "training", secondSplit: "testing",
                    pairs: [DuplicatePair(first: builder.root + "/train/cat/2.jpg", second: builder.root + "/test/cat/copy.jpg")])
            ])
        XCTAssertTrue(warnings[0].description.hasPrefix("1 identical file(s) in both training and testing data"), warnings[0].description)
    }

    func testClassesMoreThanFourTimesApartAreReported() throws {
        let balanced = try FolderBuilder(self)
        try balanced.images("cat", count: 8)
        try balanced.images("dog", count: 2)
        XCTAssertEqual(DatasetWarnings.check(try DatasetLayout.resolve(path: balanced.root)), [], "exactly 4× is still fine")

        let skewed = try FolderBuilder(self)
        try skewed.images("cat", count: 9)
        try skewed.images("dog", count: 2)
        try skewed.images("emu", count: 3)
        let warnings = DatasetWarnings.check(try DatasetLayout.resolve(path: skewed.root))
        XCTAssertEqual(warnings, [.classImbalance(split: "training", largest: "cat", largestCount: 9, smallest: "dog", smallestCount: 2)])
        XCTAssertEqual(warnings.first?.description, "training classes are unbalanced: 'cat' has 9 images, 'dog' only 2")
    }
}
