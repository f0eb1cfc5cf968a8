import TagCore
import TagRouter

/// The daemon's metrics in the Prometheus text format, from one status
/// snapshot and the process: what `/metrics` answers and the textfile holds.
/// Labels name readers, routes and actions as the config does — never a tag UID.
enum DaemonMetrics {
    static func text(_ status: DaemonStatus, process: ProcessMetrics? = .current()) -> String {
        var text = PrometheusText()
        text.family("tagrouter_build_info", "gauge", "The running tagrouter's version; always 1.")
        text.sample("tagrouter_build_info", ["version": tagrouterVersion], 1)

        text.family("tagrouter_config_rejected", "gauge", "1 after a reload rejected the config file on disk (the previous config runs; a restart would fail), else 0.")
        text.sample("tagrouter_config_rejected", status.configRejected == nil ? 0 : 1)

        text.family("tagrouter_events_total", "counter", "Events routed, by reader and kind (tag.arrived, reader.connected, ...).")
        for (reader, kinds) in status.eventCounts.sorted(by: { $0.key < $1.key }) {
            for (kind, count) in kinds.sorted(by: { $0.key < $1.key }) {
                text.sample("tagrouter_events_total", ["reader": reader, "kind": kind], Double(count))
            }
        }
        text.family("tagrouter_reader_up", "gauge", "1 while the reader is connected, else 0.")
        for reader in status.readers {
            text.sample("tagrouter_reader_up", ["reader": reader.name], reader.state == .connected ? 1 : 0)
        }
        writeReaderLatencies(status.readers, to: &text)
        text.family("tagrouter_route_matches_total", "counter", "Events each route matched.")
        for route in status.routes {
            text.sample("tagrouter_route_matches_total", ["route": route.name], Double(route.matches))
        }
        writeActions(status.actions, to: &text)
        writeBuffer(status, to: &text)
        if let mqtt = status.connections.first(where: { $0.plugin == "mqtt" }) {
            text.family("tagrouter_mqtt_connected", "gauge", "1 while the MQTT connection is up, else 0.")
            text.sample("tagrouter_mqtt_connected", mqtt.connected ? 1 : 0)
        }
        if !status.inputs.isEmpty {
            text.family("tagrouter_input_messages_total", "counter", "Messages an input received, dropped as copies, ignored and refused (by reason), by input (inputs[n]).")
            for input in status.inputs {
                for count in input.counts {
                    text.sample("tagrouter_input_messages_total", ["input": input.path, "count": count.name], Double(count.value))
                }
            }
        }
        process?.write(to: &text)
        return text.text
    }

    private static func writeActions(_ actions: [ActionStatus], to text: inout PrometheusText) {
        text.family("tagrouter_action_results_total", "counter", "How deliveries ended, by action id (route.index.plugin) and result.")
        for action in actions {
            let counters = action.counters
            let results: [(ActionResult, Int)] = [
                (.delivered, counters.delivered), (.failed, counters.failed), (.retried, counters.retried),
                (.spooled, counters.spooled), (.dropped, counters.dropped),
            ]
            for (result, count) in results {
                text.sample("tagrouter_action_results_total", ["action": action.id, "result": result.rawValue], Double(count))
            }
        }
        text.family("tagrouter_action_queue_depth", "gauge", "Deliveries waiting in the action's queue in memory.")
        for action in actions { text.sample("tagrouter_action_queue_depth", ["action": action.id], Double(action.queueDepth)) }
        text.family("tagrouter_spool_entries", "gauge", "Deliveries waiting in the action's spool on disk.")
        for action in actions { text.sample("tagrouter_spool_entries", ["action": action.id], Double(action.spoolDepth)) }
        text.family("tagrouter_tap_to_action_seconds", "histogram", "From the tap (the event's time) to the action's successful delivery.")
        for action in actions {
            text.histogram("tagrouter_tap_to_action_seconds", [("action", action.id)], action.latency)
        }
    }

    /// How fast each reader is: place → `tag.arrived` as far as the reader can tell, and
    /// its arrivals → each action's outcome.
    private static func writeReaderLatencies(_ readers: [ReaderStatus], to text: inout PrometheusText) {
        text.family(
            "tagrouter_reader_arrival_seconds", "histogram",
            "Place → tag.arrived as far as the reader can tell: from the start of the look at the field that found the tag (PC/SC: pcscd's report of the card) to the event, the tag read.")
        for reader in readers { text.histogram("tagrouter_reader_arrival_seconds", [("reader", reader.name)], reader.arrival) }
        text.family(
            "tagrouter_arrival_to_outcome_seconds", "histogram",
            "From a reader's tag.arrived to each action's outcome for it (delivered, failed or dropped), by reader and action id.")
        for reader in readers {
            for (action, record) in reader.outcomes.sorted(by: { $0.key < $1.key }) {
                text.histogram("tagrouter_arrival_to_outcome_seconds", [("reader", reader.name), ("action", action)], record)
            }
        }
    }

    private static func writeBuffer(_ status: DaemonStatus, to text: inout PrometheusText) {
        text.family("tagrouter_event_buffer_depth", "gauge", "Events waiting between the readers and the router.")
        text.sample("tagrouter_event_buffer_depth", Double(status.eventBufferDepth))
        text.family("tagrouter_event_buffer_capacity", "gauge", "Events the buffer between the readers and the router holds at most.")
        text.sample("tagrouter_event_buffer_capacity", Double(status.eventBufferCapacity))
        text.family("tagrouter_event_buffer_dropped_total", "counter", "Events dropped because the buffer was full.")
        text.sample("tagrouter_event_buffer_dropped_total", Double(status.eventBufferDropped))
    }
}

extension PrometheusText {
    /// One histogram series from a latency record.
    mutating func histogram(_ name: String, _ labels: [(key: String, value: String)], _ record: LatencyRecord) {
        histogram(name, labels, bounds: LatencyRecord.bucketBounds, cumulative: record.bucketCounts, count: record.count, sum: record.sum)
    }
}
