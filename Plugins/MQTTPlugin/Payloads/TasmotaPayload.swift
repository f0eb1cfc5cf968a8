import FoundationEssentials
import OrderedJSON
import TagCore

/// The JSON a Tasmota device with a PN532 publishes on `tele/<topic>/SENSOR`
/// when a card is read, so Home Assistant and Node-RED templates written for
/// Tasmota readers (`value_json.PN532.UID`) work unchanged:
///
///     {"Time":"2019-01-10T18:23:24","PN532":{"UID":"94D8FC5F","DATA":"ILOVETASMOTA"}}
///
/// `Time` is local time without a zone, to the second; `UID` is the UID in
/// uppercase hex; `DATA` is the first Text record (Tasmota: the text in block 1), or "".
/// Tasmota publishes nothing when a card leaves, so only `tag.arrived` has this shape.
public enum TasmotaPayload {
    /// The payload for `event`, or nil when Tasmota has no message for it.
    public static func payload(for event: TagEvent, timeZone: TimeZone = .current) -> String? {
        guard event.kind == .tagArrived, let tag = event.tag else { return nil }
        var reader = JSONObject()
        reader["UID"] = .string(tag.uid.hex.uppercased())
        reader["DATA"] = .string(event.text ?? "")
        var object = JSONObject()
        object["Time"] = .string(time(event.time, timeZone: timeZone))
        object["PN532"] = .object(reader)
        return JSONValue.object(object).serialized()
    }

    /// `yyyy-MM-ddTHH:mm:ss` in `timeZone`, as Tasmota prints its local time.
    static func time(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : String($0) } ?? "00" }
        return "\(parts.year ?? 1970)-\(two(parts.month))-\(two(parts.day))T\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
    }
}
