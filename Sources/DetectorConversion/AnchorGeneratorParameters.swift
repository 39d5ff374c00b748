import Models

/// SSD's `MultipleGridAnchorGenerator` as the frozen graph configures it, and the anchors it generates.
///
/// The graph does not store its 1,917 anchors: a subgraph computes them from per-layer constants. Per feature map
/// `l` with a `gridHeight × gridWidth` grid and anchor kinds `(scale, aspectRatio)`, the anchor at row `y`,
/// column `x` of kind `a` is centred at `((y + ½)/gridHeight, (x + ½)/gridWidth)` with height
/// `scale/√aspectRatio` and width `scale·√aspectRatio` (base anchor size 1 on a square input), all in fractions of
/// the input; anchors go map by map, row by row, column by column, kind by kind, the order of the predictors'
/// outputs. Generated in Float with the graph's operation order; `DetectionTests` compares them with the anchors
/// TensorFlow computes from the graph (`Tests/DetectionTests/Fixtures/detector-anchors.json`).
public struct AnchorGeneratorParameters: Sendable, Equatable {
    /// One feature map's anchor layout.
    public struct Layer: Sendable, Equatable {
        public var gridHeight: Int
        public var gridWidth: Int
        /// Per anchor kind, its scale (the side of a square anchor, fraction of the input).
        public var scales: [Float]
        /// Per anchor kind, width over height (the width is `scale·√ratio`).
        public var aspectRatios: [Float]

        /// A layer from its parts.
        public init(gridHeight: Int, gridWidth: Int, scales: [Float], aspectRatios: [Float]) {
            self.gridHeight = gridHeight
            self.gridWidth = gridWidth
            self.scales = scales
            self.aspectRatios = aspectRatios
        }
    }

    /// The feature maps' layouts, in order.
    public var layers: [Layer]

    /// Parameters from their parts.
    public init(layers: [Layer]) { self.layers = layers }

    /// Reads the parameters from the graph's anchor-generator constants: per map `l` the aspect ratios are the input
    /// of its `Sqrt` node (`Sqrt`, `Sqrt_1`, …), the scales the constant that node's output divides (heights) and
    /// multiplies (widths), and the grid the limits of its two `Range` nodes (`range`, `range_1` for map 0; `range_2l`, `range_2l+1`).
    init(graph: TensorFlowGraph) throws(DetectorConversionError) {
        let scope = "MultipleGridAnchorGenerator/"
        var layers: [Layer] = []
        for map in SSDLiteMobileNetV2Architecture.featureMaps {
            let index = map.index
            let sqrtName = scope + (index == 0 ? "Sqrt" : "Sqrt_\(index)")
            let sqrt = try graph.node(sqrtName, for: "the anchor generator's aspect ratios")
            guard sqrt.op == "Sqrt", let ratioInput = sqrt.input.first else {
                throw DetectorConversionError(path: graph.path, reason: "node \(sqrtName) is a \(sqrt.op), expected Sqrt")
            }
            let ratios = try graph.constant(try graph.source(of: ratioInput, for: "aspect ratios")).values
            let consumers = graph.consumers(of: sqrtName)
            guard let division = consumers.first(where: { $0.op == "RealDiv" && $0.input.count == 2 && $0.input[1] == sqrtName }),
                let product = consumers.first(where: { $0.op == "Mul" && $0.input.count == 2 })
            else {
                throw DetectorConversionError(path: graph.path, reason: "node \(sqrtName) does not feed the anchor heights and widths")
            }
            let heightScales = try graph.constant(try graph.source(of: division.input[0], for: "anchor scales")).values
            let widthInput = product.input[0] == sqrtName ? product.input[1] : product.input[0]
            let widthScales = try graph.constant(try graph.source(of: widthInput, for: "anchor scales")).values
            guard heightScales == widthScales, heightScales.count == ratios.count, ratios.count == map.anchorsPerPosition else {
                throw DetectorConversionError(
                    path: graph.path,
                    reason: "anchor layer \(index): \(ratios.count) aspect ratios, "
                        + "\(heightScales.count)/\(widthScales.count) scales, expected \(map.anchorsPerPosition) of each")
            }
            func range(_ number: Int) -> String { scope + (number == 0 ? "range" : "range_\(number)") + "/limit" }
            let gridHeight = try graph.wholeScalar(range(2 * index), for: "the anchor grid's height")
            let gridWidth = try graph.wholeScalar(range(2 * index + 1), for: "the anchor grid's width")
            guard gridHeight == map.side, gridWidth == map.side else {
                throw DetectorConversionError(
                    path: graph.path,
                    reason: "anchor layer \(index) has a \(gridHeight)×\(gridWidth) grid, "
                        + "expected \(map.side)×\(map.side)")
            }
            layers.append(Layer(gridHeight: gridHeight, gridWidth: gridWidth, scales: heightScales, aspectRatios: ratios))
        }
        self.init(layers: layers)
    }

    /// The anchors, `[count, 4]` flattened: (yCenter, xCenter, height, width) each.
    ///
    /// TensorFlow computes corners (`centre ∓ ½·size`) and the box decoder turns them back into centres and sizes;
    /// that round trip is repeated here so the values are the decoder's, bit for bit where Float allows.
    public func anchors() -> [Float] {
        var anchors: [Float] = []
        for layer in layers {
            let strideY = Float(1) / Float(layer.gridHeight), strideX = Float(1) / Float(layer.gridWidth)
            let offsetY = Float(0.5) * strideY, offsetX = Float(0.5) * strideX
            let roots = layer.aspectRatios.map { $0.squareRoot() }
            for y in 0..<layer.gridHeight {
                for x in 0..<layer.gridWidth {
                    let centerY = Float(y) * strideY + offsetY, centerX = Float(x) * strideX + offsetX
                    for kind in 0..<layer.scales.count {
                        let height = layer.scales[kind] / roots[kind], width = layer.scales[kind] * roots[kind]
                        let top = centerY - Float(0.5) * height, bottom = centerY + Float(0.5) * height
                        let left = centerX - Float(0.5) * width, right = centerX + Float(0.5) * width
                        let anchorHeight = bottom - top, anchorWidth = right - left
                        anchors += [top + anchorHeight / 2, left + anchorWidth / 2, anchorHeight, anchorWidth]
                    }
                }
            }
        }
        return anchors
    }
}
