import Foundation
import XCTest
@testable import Training

final class DebugTemp: XCTestCase {
    func testDebug() throws {
        for name in ["logistic-uniform", "logistic-balanced", "logistic-weak-penalty"] {
            let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures")!
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
            let raw = (json["features"] as! [Double]).map { Float($0) }
            let labels = json["labels"] as! [Int]
            let s = Standardizer(fitting: raw, count: 90, dimension: 6)
            let x = s.apply(raw, count: 90)
            let weighting = ClassWeighting(rawValue: json["classWeighting"] as! String)!
            let w = LogisticRegressionTrainer.sampleWeights(labels: labels, classCount: 3, weighting: weighting)
            let objective = LogisticObjective(features: x, labels: labels, sampleWeights: w, count: 90, dimension: 6, classCount: 3, l2: json["l2"] as! Double)
            for tol in [1e-6, 1e-8, 1e-10] {
                let opt = LBFGS(memory: 10, maxIterations: 1000, gradientTolerance: tol * 90, relativeLossTolerance: tol * 1e-4)
                let r = opt.minimize(from: [Double](repeating: 0, count: 21)) { p, g in objective.evaluate(p, gradient: &g) }
                let golden = (json["coefficients"] as! [Double]) + (json["intercepts"] as! [Double])
                let err = zip(r.parameters, golden).map { abs($0 - $1) }.max()!
                var g: [Double] = []
                let goldenLoss = objective.referenceEvaluate(golden, gradient: &g)
                print(name, tol, r.stopReason, r.iterations, r.loss, goldenLoss, maxAbsolute(r.gradient), "golden grad", maxAbsolute(g), "err", err)
            }
        }
    }
}
