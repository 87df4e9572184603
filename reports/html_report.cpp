// Report generation; see reports/html_report.h.
