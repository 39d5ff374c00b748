import Foundation
import Workbench
import XCTest
import _TestSupport

/// `SlurmWorkflow.run` without submitting (`workbench slurm … --dry-run`): the plan's scripts, nothing written and
/// nothing submitted, and the checks made before any of it. A labeling job's dry run is in `WorkflowTests`, which
/// has a model.
final class SlurmWorkflowTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try WorkbenchBinary.temporaryFolder()
        let fixtures = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ModelsTests/Fixtures")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("images"), withIntermediateDirectories: true)
        for name in ["chelsea.jpg", "coffee.jpg", "coffee_224.png"] {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: folder.appendingPathComponent("images/\(name)"))
        }
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func testAFeaturesDryRunPlansTheArrayAndWritesNothing() throws {
        let jobFolder = folder.appendingPathComponent("job").path
        let images = folder.appendingPathComponent("images").path
        var request = SlurmJobRequest(job: .features(inputs: [images], backbone: nil), cluster: SlurmRequest(tasks: 3, jobFolder: jobFolder))
        request.submits = false
        let result = try SlurmWorkflow.run(request) { _ in XCTFail("nothing is submitted") }
        XCTAssertEqual(result.submitted, [])
        XCTAssertEqual(result.plan.jobs.count, 1)
        let job = try XCTUnwrap(result.plan.jobs.first)
        XCTAssertEqual(job.scriptPath, jobFolder + "/features-array.sbatch")
        XCTAssertFalse(job.afterPrevious)
        XCTAssertTrue(job.summary.hasPrefix("array job: 3 tasks embed 3 images into "), job.summary)
        XCTAssertTrue(job.script.hasPrefix("#!"), job.script)
        XCTAssertTrue(job.script.contains("#SBATCH --array=0-2\n"), job.script)
        XCTAssertTrue(job.script.contains(images), "the task names the inputs")
        XCTAssertTrue(result.plan.dryRunText.hasPrefix("# \(job.summary)\n# sbatch "), result.plan.dryRunText)
        XCTAssertFalse(FileManager.default.fileExists(atPath: jobFolder), "a dry run writes no script and no folder")

        // More tasks than images: refused before any plan.
        request.cluster.tasks = 4
        XCTAssertThrowsError(try SlurmWorkflow.run(request)) { error in
            XCTAssertEqual("\(error)", "4 tasks are more than the 3 images: some tasks would have nothing to do")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: jobFolder))
    }
}
