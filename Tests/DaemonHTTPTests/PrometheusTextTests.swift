import Testing

@testable import DaemonHTTP

/// The exposition format's details a parser is strict about: numbers, escaping, histogram series.
@Suite struct PrometheusTextTests {
    @Test(arguments: [(1.0, "1"), (0, "0"), (0.005, "0.005"), (2.5, "2.5"), (1e20, "1e+20"), (.infinity, "+Inf"), (-.infinity, "-Inf"), (.nan, "NaN")])
    func numbers(value: Double, text: String) {
        #expect(PrometheusText.format(value) == text)
    }

    @Test func labelValuesAreEscaped() {
        var text = PrometheusText()
        text.sample("m", ["route": "a \"b\" \\ c\nd"], 3)
        #expect(text.text == "m{route=\"a \\\"b\\\" \\\\ c\\nd\"} 3\n")
    }

    @Test func aHistogramHasCumulativeBucketsInfSumAndCount() {
        var text = PrometheusText()
        text.family("h_seconds", "histogram", "A histogram.")
        text.histogram("h_seconds", [("action", "a.0.log")], bounds: [0.1, 1], cumulative: [1, 2], count: 3, sum: 4.5)
        #expect(text.text == """
            # HELP h_seconds A histogram.
            # TYPE h_seconds histogram
            h_seconds_bucket{action="a.0.log",le="0.1"} 1
            h_seconds_bucket{action="a.0.log",le="1"} 2
            h_seconds_bucket{action="a.0.log",le="+Inf"} 3
            h_seconds_sum{action="a.0.log"} 4.5
            h_seconds_count{action="a.0.log"} 3

            """)
    }
}

/// `Authorization: Bearer <token>`: only the exact token passes.
@Suite struct BearerTokenTests {
    @Test(arguments: [
        ("Bearer s3cret", true), ("bearer s3cret", true), ("Bearer  s3cret", true), ("Bearer s3cre", false), ("Bearer s3cret2", false),
        ("Bearer ", false), ("Basic czNjcmV0", false), ("s3cret", false),
    ])
    func admitsOnlyTheToken(header: String, admitted: Bool) {
        #expect(BearerToken("s3cret").admits(header) == admitted)
    }

    @Test func aMissingHeaderIsRefused() {
        #expect(!BearerToken("s3cret").admits(nil))
    }
}
