// The assembly here fills and returns the page values of `Pages` (`ModelReportPage`, `DetectorReportPage`, …), so
// a module that imports Reports sees them without naming Pages.
@_exported import Pages
