import DataAudit
import Inference
import Reports

/// Doctor's "Explore" page (`Reports.DoctorReportPage`) from its report: thumbnails of the files the page shows,
/// the galleries, written atomically.
enum DoctorExplorePage {
    static func write(_ report: DoctorReport, dataset: String, to path: String, extractor: FeatureExtractor) throws(WorkbenchError) {
        var page = DoctorReportPage(dataset: dataset, labels: report.labels.map(\.label))
        page.subtitle = [
            "\(report.labelIssues.count) likely in the wrong folder, \(report.duplicates.count) copies "
                + "(\(report.duplicates.filter(\.leak).count) across splits), \(report.outliers.count) outliers",
            "probabilities: \(report.rules.probabilities), l2 \(report.rules.l2)",
        ]
        page.counts = report.labels.map { ($0.label, [$0.training, $0.validation, $0.testing]) }
        (page.labelIssues, page.duplicates, page.outliers) = (report.labelIssues, report.duplicates, report.outliers)
        page.warnings = report.warnings
        page.thumbnails = DoctorReportPage.thumbnails(of: page.shownFiles, extractor: extractor)
        try ModelReports.write(page.html(), to: path)
    }
}
