import OrderedJSON

/// Latencies of one kind (an action's tap to delivery, a reader's place to
/// `tag.arrived`): the last `window` samples for the median and 99th percentile
/// `status` shows, and cumulative histogram buckets for Prometheus. Recording is
/// O(buckets), with no allocation once the window is full.
public struct LatencyRecord: Sendable {
    /// Upper bounds of the histogram buckets, in seconds (`+Inf` is implied).
    public static let bucketBounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
    static let window = 1024

    private var samples: [Double] = []
    private var nextSample = 0
    /// Samples at or below each of `bucketBounds`, cumulative as Prometheus wants them.
    public private(set) var bucketCounts = [Int](repeating: 0, count: bucketBounds.count)
    public private(set) var count = 0
    public private(set) var sum = 0.0

    public init() {}

    mutating func record(seconds: Double) {
        let value = max(0, seconds)
        if samples.count < Self.window {
            samples.append(value)
        } else {
            samples[nextSample] = value
            nextSample = (nextSample + 1) % Self.window
        }
        for (index, bound) in Self.bucketBounds.enumerated() where value <= bound { bucketCounts[index] += 1 }
        count += 1
        sum += value
    }

    mutating func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        record(seconds: Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// `{"p50": ms, "p99": ms}` as `status` gives it; nil before the first sample.
    var millisecondsJSON: JSONValue? {
        guard let p50 = quantile(0.5), let p99 = quantile(0.99) else { return nil }
        return .object(JSONObject(["p50": .double(p50 * 1000), "p99": .double(p99 * 1000)]))
    }

    /// The `fraction` quantile (0.5, 0.99) of the recent samples in seconds; nil before the first.
    public func quantile(_ fraction: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
