@testable import Datasets
import Foundation
import XCTest

final class FeatureCacheTests: XCTestCase {
    private func makeCache() throws -> FeatureCache {
        FeatureCache(folder: try FolderBuilder(self).root + "/cache")
    }

    private func key(_ image: String = "image", backbone: String = "weights-sha") -> FeatureCacheKey {
        FeatureCacheKey(contentHash: .of(Array(image.utf8)), preprocessingID: "tf_crop_pad32-224", backboneID: backbone)
    }

    func testRoundTrip() throws {
        let cache = try makeCache()
        XCTAssertNil(cache.lookup(key()))
        let features: [Float] = (0..<1280).map { Float($0) * 0.25 - 7 } + [.infinity, -0.0]
        try cache.store(key(), features: features)
        XCTAssertEqual(cache.lookup(key()).map { $0.map(\.bitPattern) }, features.map(\.bitPattern))
        XCTAssertNil(cache.lookup(key(backbone: "other-weights")), "a different backbone is a different entry")
        XCTAssertNil(cache.lookup(key("another image")))
        let stem = key().fileStem
        XCTAssertEqual(cache.path(for: key()), "\(cache.folder)/\(stem.prefix(2))/\(stem).feat")
    }

    func testDamagedEntriesReadAsMissingAndAreReplaced() throws {
        let cache = try makeCache()
        let features: [Float] = [1, 2, 3, 4]
        let path = cache.path(for: key())
        let damages: [(String, ([UInt8]) -> [UInt8])] = [
            ("truncated", { Array($0.dropLast(5)) }),
            (
                "flipped float byte",
                {
                    var b = $0; b[b.count - 40] ^= 0x01; return b
                }
            ),
            (
                "flipped checksum byte",
                {
                    var b = $0; b[b.count - 1] ^= 0x80; return b
                }
            ),
            (
                "wrong magic",
                {
                    var b = $0; b[0] = UInt8(ascii: "X"); return b
                }
            ),
            ("extra byte", { $0 + [0] }),
            ("empty", { _ in [] }),
        ]
        for (name, damage) in damages {
            try cache.store(key(), features: features)
            let intact = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            try Data(damage(intact)).write(to: URL(fileURLWithPath: path))
            XCTAssertNil(cache.lookup(key()), name)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(name): a damaged entry is deleted")
            var computed = 0
            let again = cache.features(for: key()) {
                computed += 1; return features
            }
            XCTAssertEqual(again, features, name)
            XCTAssertEqual(computed, 1, name)
            XCTAssertEqual(cache.lookup(key()), features, "\(name): stored again")
        }
    }

    func testEntryForAnotherKeyUnderThisNameIsRejected() throws {
        let cache = try makeCache()
        try cache.store(key("first"), features: [1])
        // Simulate a file-name collision: the other key's entry sits where this key's belongs.
        let source = cache.path(for: key("first")), destination = cache.path(for: key("second"))
        try FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        XCTAssertNil(cache.lookup(key("second")))
        XCTAssertEqual(cache.lookup(key("first")), [1])
    }

    func testConcurrentStoresOfOneKeyLeaveAValidEntry() throws {
        let cache = try makeCache()
        let features = (0..<1280).map { Float($0) }
        let failures = Counter()
        let sharedKey = key()
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            do { try cache.store(sharedKey, features: features) } catch { failures.increment() }
            if cache.lookup(sharedKey) != features { failures.increment() }
        }
        XCTAssertEqual(failures.value, 0)
        XCTAssertEqual(cache.lookup(key()), features)
        let entryFolder = (cache.path(for: key()) as NSString).deletingLastPathComponent
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: entryFolder).count, 1, "no temporary file may remain")
    }

    func testDefaultFolderFollowsTheEnvironment() {
        XCTAssertEqual(FeatureCache.defaultFolder(environment: ["WORKBENCH_CACHE": "/x/cache", "XDG_CACHE_HOME": "/y", "HOME": "/h"]), "/x/cache")
        XCTAssertEqual(FeatureCache.defaultFolder(environment: ["XDG_CACHE_HOME": "/y", "HOME": "/h"]), "/y/workbench/features")
        XCTAssertEqual(FeatureCache.defaultFolder(environment: ["HOME": "/h"]), "/h/.cache/workbench/features")
        XCTAssertEqual(FeatureCache(folder: "/explicit", environment: ["WORKBENCH_CACHE": "/x"]).folder, "/explicit")
    }

    func testStoreIntoAnUnwritablePlaceFails() throws {
        let builder = try FolderBuilder(self)
        let blocker = try builder.file("blocker", [1])
        let cache = FeatureCache(folder: blocker + "/cache")
        XCTAssertThrowsError(try cache.store(key(), features: [1])) { error in
            XCTAssertTrue("\(error)".contains("cannot create the feature cache folder"), "\(error)")
        }
        XCTAssertEqual(cache.features(for: key()) { [5] }, [5], "a failed store still returns the computed features")
    }

    /// Cache entries stay where they are when the SHA-256 implementation changes: one key's file stem is pinned to
    /// what Python's hashlib gives for the documented byte form (tag, then each field as "\n<length>:<bytes>"):
    ///
    ///     import hashlib
    ///     preprocessing = b'{"alphaBackground":[255,255,255],...,"version":1}'  # as below
    ///     backbone = hashlib.sha256(b"backbone").hexdigest().encode()
    ///     fields = (hashlib.sha256(b"abc").digest(), preprocessing, backbone)
    ///     key = b"workbench-feature-key/1" + b"".join(b"\n%d:" % len(f) + f for f in fields)
    ///     print(hashlib.sha256(key).hexdigest())
    func testFileStemMatchesAnIndependentDigest() {
        let preprocessing =
            #"{"alphaBackground":[255,255,255],"channelOrder":"RGB","cropPadding":32,"inputSide":224,"#
            + #""mean":[127,127,127],"name":"tf_crop_pad32","resample":"bicubic-antialiased","std":[128,128,128],"version":1}"#
        let key = FeatureCacheKey(
            contentHash: .of(Array("abc".utf8)), preprocessingID: preprocessing,
            backboneID: "b2e78e3a5bb1d60df728818ea576deafd6ba9b428fefe13794e012f226516dad")
        XCTAssertEqual(key.contentHash.hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(key.fileStem, "970658d8e1999e3211cbfcdad9cd6c73569adef8177a6326446d75bd0938173d")
    }
}

/// A thread-safe counter for the concurrency test.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
