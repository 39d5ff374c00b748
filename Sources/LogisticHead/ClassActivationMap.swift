/// Where in an image a linear head finds its evidence for each label (Zhou et al., "Learning Deep Features for
/// Discriminative Localization", 2016).
///
/// The features are the global average of a feature map `F [positions, dimension]`, and the head is linear on the
/// standardised features: `logit_k = Σ_c W_kc (mean_p F_pc − μ_c) / σ_c + b_k`. Averaging commutes with a linear map,
/// so `logit_k = mean_p CAM_k(p) + b_k` with `CAM_k(p) = Σ_c W_kc (F_pc − μ_c) / σ_c`: the map is not an
/// approximation but the exact share of each position in the logit. Positive values push toward label `k`,
/// negative ones away; `μ` makes them relative to the average training image.
public enum ClassActivationMap {
    /// `CAM_k(p)` for every label: `[classCount][positions]`. `featureMap` is one image's map `[positions, dimension]`
    /// (positions row-major over the grid, as the network's NHWC output).
    public static func compute(
        featureMap: [Float], positions: Int, model: LogisticRegressionModel,
        standardizer: Standardizer
    ) -> [[Float]] {
        precondition(
            positions >= 1 && featureMap.count == positions * model.dimension && standardizer.dimension == model.dimension,
            "ClassActivationMap: the map must be [positions, dimension] of the head's dimension")
        // The head at each position is W (F_p − μ)/σ + b; dropping b leaves the position's share.
        let logits = model.logits(standardizer.apply(featureMap, count: positions), count: positions)
        return (0..<model.classCount).map { k in
            (0..<positions).map { p in logits[p * model.classCount + k] - model.bias[k] }
        }
    }
}
