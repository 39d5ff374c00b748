import XCTest
@testable import ClusterJobs

final class ShardTests: XCTestCase {
    func testParsesIndexOverCountCountingFromZero() throws {
        XCTAssertEqual(try Shard(parsing: "0/4"), try Shard(index: 0, count: 4))
        XCTAssertEqual(try Shard(parsing: "3/4").index, 3)
        XCTAssertEqual(try Shard(parsing: "0/1"), Shard.whole)
        XCTAssertEqual(try Shard(parsing: "12/100").description, "12/100")
    }

    func testRefusesAnythingElseWithALineThatShowsTheForm() {
        for text in ["", "4", "/4", "1/", "a/4", "-1/4", "+1/4", " 1/4", "1/4 ", "1/4/2", "1.0/4", "١/4"] {
            XCTAssertThrowsError(try Shard(parsing: text), text) { error in
                XCTAssertEqual("\(error)", "shard '\(text)' is not I/N, e.g. 0/4 for the first of four parts (I counts from 0)")
            }
        }
        XCTAssertThrowsError(try Shard(parsing: "4/4")) { error in
            XCTAssertEqual("\(error)", "shard 4/4 does not exist: shards of 4 are 0/4 to 3/4")
        }
        XCTAssertThrowsError(try Shard(parsing: "0/0")) { error in
            XCTAssertEqual("\(error)", "a shard count must be at least 1, not 0")
        }
    }

    func testCountsAboveTheMaximumAreRefusedWithALine() throws {
        XCTAssertEqual(try Shard(parsing: "999999/1000000"), try Shard(index: 999_999, count: Shard.maximumCount))
        let refusal = "a shard count must be at most 1000000 (more tasks than any cluster array runs), not "
        for count in ["1000001", "9223372036854775807", "99999999999999999999999"] {
            XCTAssertThrowsError(try Shard(parsing: "0/\(count)"), count) { error in
                XCTAssertEqual("\(error)", refusal + count)
            }
        }
        let kubernetes = ["JOB_COMPLETION_INDEX": "0", "WORKBENCH_SHARD_COUNT": "9223372036854775807"]
        XCTAssertThrowsError(try Shard.resolve(option: nil, environment: kubernetes)) { error in
            XCTAssertEqual("\(error)", refusal + "9223372036854775807")
        }
        let slurm = ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "9223372036854775807"]
        XCTAssertThrowsError(try Shard.resolve(option: nil, environment: slurm)) { error in
            XCTAssertEqual("\(error)", refusal + "9223372036854775807")
        }
        // A first id near Int.max would overflow the last one: refused, not a trap.
        let late = [
            "SLURM_ARRAY_TASK_ID": "9223372036854775807", "SLURM_ARRAY_TASK_COUNT": "2",
            "SLURM_ARRAY_TASK_MIN": "9223372036854775807",
        ]
        XCTAssertThrowsError(try Shard.resolve(option: nil, environment: late)) { error in
            XCTAssertEqual("\(error)", "SLURM_ARRAY_TASK_MIN is '9223372036854775807', too large for an array task id")
        }
    }

    func testOptionWinsOverTheEnvironment() throws {
        let environment = ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"]
        let resolved = try XCTUnwrap(Shard.resolve(option: "2/3", environment: environment))
        XCTAssertEqual(resolved.shard, try Shard(index: 2, count: 3))
        XCTAssertEqual(resolved.source, .option)
    }

    func testNoOptionAndNoArrayMeansTheWholeInput() throws {
        XCTAssertNil(try Shard.resolve(option: nil, environment: ["PATH": "/usr/bin"]))
    }

    func testSlurmArrayTaskGivesItsShardFromTheFirstId() throws {
        // sbatch --array=0-3: what Slurm sets in task 2.
        let fromZero = [
            "SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0",
            "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_STEP": "1",
        ]
        let resolved = try XCTUnwrap(Shard.resolve(option: nil, environment: fromZero))
        XCTAssertEqual(resolved.shard, try Shard(index: 2, count: 4))
        XCTAssertEqual(resolved.source, .slurmArray)
        // sbatch --array=1-4: task 4 is the last shard.
        let fromOne = [
            "SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1",
            "SLURM_ARRAY_TASK_MAX": "4",
        ]
        XCTAssertEqual(try Shard.resolve(option: nil, environment: fromOne)?.shard, try Shard(index: 3, count: 4))
    }

    func testSlurmArrayWithAStepOrGapsIsRefused() {
        let stepped = [
            "SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0",
            "SLURM_ARRAY_TASK_MAX": "4", "SLURM_ARRAY_TASK_STEP": "2",
        ]
        XCTAssertThrowsError(try Shard.resolve(option: nil, environment: stepped)) { error in
            XCTAssertEqual("\(error)", "array tasks 0-4 step 2 are not 3 consecutive ids: give the shard as I/N")
        }
        let gaps = [
            "SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "1",
            "SLURM_ARRAY_TASK_MAX": "5",
        ]
        XCTAssertThrowsError(try Shard.resolve(option: nil, environment: gaps))
        XCTAssertThrowsError(try Shard.resolve(option: nil, environment: ["SLURM_ARRAY_TASK_ID": "1"])) { error in
            XCTAssertEqual("\(error)", "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: give the shard as I/N")
        }
        XCTAssertThrowsError(try Shard.resolve(option: nil, environment: ["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"])) { error in
            XCTAssertEqual("\(error)", "SLURM_ARRAY_TASK_ID is 'x', not a number")
        }
    }

    func testKubernetesIndexedJobNeedsTheCountBesideTheIndex() throws {
        let resolved = try XCTUnwrap(Shard.resolve(option: nil, environment: ["JOB_COMPLETION_INDEX": "4", "WORKBENCH_SHARD_COUNT": "5"]))
        XCTAssertEqual(resolved.shard, try Shard(index: 4, count: 5))
        XCTAssertEqual(resolved.source, .kubernetesIndexedJob)
        XCTAssertThrowsError(try Shard.resolve(option: nil, environment: ["JOB_COMPLETION_INDEX": "4"])) { error in
            XCTAssertEqual(
                "\(error)", "JOB_COMPLETION_INDEX is set but WORKBENCH_SHARD_COUNT is not: set it to the Job's completions, or give the shard as I/N")
        }
        XCTAssertThrowsError(try Shard.resolve(option: nil, environment: ["JOB_COMPLETION_INDEX": "5", "WORKBENCH_SHARD_COUNT": "5"])) { error in
            XCTAssertEqual("\(error)", "shard 5/5 does not exist: shards of 5 are 0/5 to 4/5")
        }
    }
}
