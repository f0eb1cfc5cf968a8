import CMosquitto
import Glibc

/// One connection attempt: a libmosquitto handle from `mosquitto_new` to
/// `mosquitto_destroy`, used only on the connection's loop thread.
///
/// libmosquitto runs without its own thread (`mosquitto_loop` is called by
/// the owner after `poll`), so every callback fires on that same thread,
/// inside `step()` or `publish(_:)`. The callbacks only record what happened
/// in this object's buffers; the owner drains them after each call. Each
/// attempt gets a fresh handle, so libmosquitto never resends a message on
/// its own: resending after a reconnect is the `Outbox`'s job, in order.
///
/// Acknowledging incoming QoS 1 messages after they are taken: libmosquitto
/// 2.0 queues the PUBACK *before* it calls the message callback, and writes
/// it at once unless the handle is marked threaded. With
/// `acknowledgeWhenAccepted` the handle is marked so (`mosquitto_threaded_set`
/// changes nothing else but that), and the owner reads and writes apart —
/// `readWaiting` reads every message the socket holds, their PUBACKs wait in
/// libmosquitto's queue, and `writeAndKeepAlive` writes them together once
/// the owner lets it (docs/fleet.md).
final class MQTTSession {
    private let handle: OpaquePointer
    private let settings: MQTTSettings

    /// The CONNACK code once it arrived (0: accepted).
    private(set) var connackCode: Int32?
    /// The reason code of the broker's DISCONNECT (MQTT 5), or of the connection's end.
    private(set) var disconnectCode: Int32?
    /// Message ids whose delivery completed (PUBACK, PUBCOMP, or a QoS 0 write), in order.
    private(set) var completedMids: [Int32] = []
    /// Messages that arrived on our subscriptions, in order, and the bytes they hold.
    private(set) var received: [MQTTMessage] = []
    private(set) var receivedBytes = 0
    /// SUBACKs that arrived: for each, whether the broker granted every filter of that SUBSCRIBE.
    private(set) var subscribeAcks: [Bool] = []
    /// libmosquitto gave the connection up: no packet came back within `keepalive` of its PINGREQ.
    private(set) var keepaliveExpired = false
    /// SUBACKs of this session that granted their filters, counted by the connection.
    var grantedSubscriptions = 0

    private static let libraryReady: Void = { _ = mosquitto_lib_init() }()

    init(settings: MQTTSettings) throws(MQTTError) {
        _ = Self.libraryReady
        guard let handle = mosquitto_new(settings.clientID, !settings.persistentSession, nil) else {
            throw .invalidSettings("cannot create an MQTT client with client id '\(settings.clientID)' (out of memory?)")
        }
        self.handle = handle
        self.settings = settings
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        try configure()
    }

    deinit {
        mosquitto_destroy(handle)
    }

    private func configure() throws(MQTTError) {
        let version = settings.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version), "protocol version")
        try check(mosquitto_int_option(handle, MOSQ_OPT_SEND_MAXIMUM, Int32(clamping: settings.maxInFlight)), "max in flight")
        if settings.acknowledgeWhenAccepted {
            try check(mosquitto_threaded_set(handle, true), "acknowledge after acceptance")
        }
        if let username = settings.username {
            try check(mosquitto_username_pw_set(handle, username, settings.password), "username")
        }
        if let tls = settings.tls {
            try configureTLS(tls)
        }
        if let topic = settings.availabilityTopic {
            let offline = Array("offline".utf8)
            try check(mosquitto_will_set(handle, topic, Int32(offline.count), offline, 1, true), "availability_topic '\(topic)'")
        }
        mosquitto_connect_callback_set(handle) { _, context, code in
            guard let context else { return }
            Unmanaged<MQTTSession>.fromOpaque(context).takeUnretainedValue().connackCode = code
        }
        mosquitto_publish_callback_set(handle) { _, context, mid in
            guard let context else { return }
            Unmanaged<MQTTSession>.fromOpaque(context).takeUnretainedValue().completedMids.append(mid)
        }
        mosquitto_subscribe_callback_set(handle) { _, context, _, count, granted in
            guard let context else { return }
            // 0x80 in place of a granted QoS: the broker refused that filter (ACL, a `$share` it does not know).
            let refused = (0..<Int(count)).contains { granted?[$0] ?? 0x80 >= 0x80 }
            Unmanaged<MQTTSession>.fromOpaque(context).takeUnretainedValue().subscribeAcks.append(!refused)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, context, code, _ in
            guard let context else { return }
            Unmanaged<MQTTSession>.fromOpaque(context).takeUnretainedValue().disconnectCode = code
        }
        mosquitto_message_v5_callback_set(handle) { _, context, message, properties in
            guard let context, let message, let topic = message.pointee.topic else { return }
            let payload = message.pointee.payload.map {
                Array(UnsafeRawBufferPointer(start: $0, count: Int(message.pointee.payloadlen)))
            } ?? []
            let copy = MQTTMessage(
                topic: String(cString: topic), payload: payload, qos: Int(message.pointee.qos), retain: message.pointee.retain,
                userProperties: MQTTSession.userProperties(properties))
            let session = Unmanaged<MQTTSession>.fromOpaque(context).takeUnretainedValue()
            session.received.append(copy)
            session.receivedBytes += copy.heldBytes
        }
    }

    /// At most this many user properties are kept from one incoming message; the rest are dropped unread.
    static let userPropertyLimit = 16

    /// The user properties of an incoming MQTT 5 message (none for 3.1.1), the first `userPropertyLimit`.
    private static func userProperties(_ list: OpaquePointer?) -> [MQTTMessage.UserProperty] {
        var properties: [MQTTMessage.UserProperty] = []
        var cursor = list
        var skipFirst = false
        while properties.count < userPropertyLimit {
            var name: UnsafeMutablePointer<CChar>?
            var value: UnsafeMutablePointer<CChar>?
            guard let found = mosquitto_property_read_string_pair(cursor, Int32(MQTT_PROP_USER_PROPERTY.rawValue), &name, &value, skipFirst)
            else { break }
            if let name, let value { properties.append(.init(String(cString: name), String(cString: value))) }
            free(name)
            free(value)
            cursor = found
            skipFirst = true
        }
        return properties
    }

    private func configureTLS(_ tls: MQTTSettings.TLS) throws(MQTTError) {
        if let caFile = tls.caFile {
            try check(mosquitto_tls_set(handle, caFile, nil, tls.certFile, tls.keyFile, nil), "tls ca_file/cert_file/key_file")
        } else {
            // The system's CA store; mosquitto_tls_set needs a CA file or directory, so a client
            // certificate without ca_file goes with the system's certificate directory.
            try check(mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "tls (system CA store)")
            if tls.certFile != nil {
                try check(mosquitto_tls_set(handle, nil, "/etc/ssl/certs", tls.certFile, tls.keyFile, nil), "tls cert_file/key_file")
            }
        }
        if tls.insecure {
            try check(mosquitto_tls_opts_set(handle, 0, nil, nil), "tls insecure")
            try check(mosquitto_tls_insecure_set(handle, true), "tls insecure")
        }
    }

    private func check(_ code: Int32, _ what: String) throws(MQTTError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            throw .invalidSettings("\(what): \(Self.describe(code))")
        }
    }

    /// The largest packet the broker may send us with MQTT 5 (CONNECT's Maximum
    /// Packet Size): the largest payload any consumer of `incoming` takes (an `mqtt`
    /// input's event, a write request; larger ones are refused as malformed) and
    /// 8 KiB for the fixed header, the topic, the packet id and the properties
    /// (a signature's user properties are well under 1 KiB). The broker drops a
    /// larger message for this client instead of sending it; MQTT 3.1.1 has no
    /// such field, and libmosquitto 2.0 reads any size there (docs/security.md).
    static let maximumIncomingPacket = max(InputFormat.payloadLimit, MQTTWriteCommands.maximumPayload) + (8 << 10)

    /// Starts the TCP (and TLS) connection without blocking; CONNECT goes out when the socket is writable.
    /// MQTT 5 sends properties in CONNECT (`maximumIncomingPacket`, and a persistent
    /// session's expiry), which libmosquitto 2.0 takes only on a blocking connect:
    /// that one waits for TCP.
    func connect() throws(MQTTError) {
        let code: Int32
        if settings.protocolVersion == .v5 {
            var properties: OpaquePointer?
            defer { mosquitto_property_free_all(&properties) }
            _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), UInt32(Self.maximumIncomingPacket))
            if settings.persistentSession {
                let expiry = UInt32(clamping: settings.sessionExpiry.components.seconds)
                _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), expiry)
            }
            code = mosquitto_connect_bind_v5(handle, settings.host, Int32(settings.port), Int32(settings.keepalive), nil, properties)
        } else {
            code = mosquitto_connect_async(handle, settings.host, Int32(settings.port), Int32(settings.keepalive))
        }
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            throw .unreachable(broker: settings.broker, reason: Self.describe(code))
        }
    }

    /// The socket to poll, or -1 when there is none.
    var socket: Int32 { mosquitto_socket(handle) }

    /// True when libmosquitto has bytes waiting for the socket to become writable.
    var wantsWrite: Bool { mosquitto_want_write(handle) }

    /// True once the broker accepted the connection.
    var isAccepted: Bool { connackCode == 0 }

    /// Reads, writes and keeps alive whatever is ready, without waiting; callbacks fire here.
    /// Returns nil while the connection is fine, else why it ended.
    func step() -> MQTTError? {
        let code = mosquitto_loop(handle, 0, 1)
        guard code != MOSQ_ERR_SUCCESS.rawValue else { return nil }
        return failure(code)
    }

    /// Why the connection ended, from a libmosquitto error code and the CONNACK, if any.
    func failure(_ code: Int32) -> MQTTError {
        if let connack = connackCode, connack != 0 {
            let reason = settings.protocolVersion == .v5
                ? String(cString: mosquitto_reason_string(connack)) : String(cString: mosquitto_connack_string(connack))
            return .refused(broker: settings.broker, code: Int(connack), reason: reason)
        }
        if disconnectCode == Int32(MQTT_RC_SESSION_TAKEN_OVER.rawValue) {
            return .takenOver(broker: settings.broker, clientID: settings.clientID)
        }
        return .unreachable(broker: settings.broker, reason: Self.describe(code))
    }

    /// Reads, without writing, message after message while the socket has more,
    /// until at least `limit` messages or `bytes` bytes wait in `received`; callbacks fire here. Stops at
    /// a read that brought no message (another packet, a part of one, or a
    /// connection still being made): the owner's next poll and write see to it.
    /// Returns nil while the connection is fine, else why it ended.
    func readWaiting(limit: Int, bytes: Int) -> MQTTError? {
        while received.count < limit, receivedBytes < bytes, isReady(for: Int16(POLLIN)) {
            let before = received.count
            let code = mosquitto_loop_read(handle, 1)
            guard code == MOSQ_ERR_SUCCESS.rawValue else { return failure(code) }
            if socket < 0 { return failure(MOSQ_ERR_NO_CONN.rawValue) }
            if received.count == before { break }
        }
        return nil
    }

    /// Writes what is queued when the socket takes it, and keeps the connection
    /// alive (PINGREQ, and giving up on a broker that does not answer it); reads nothing.
    func writeAndKeepAlive() -> MQTTError? {
        if wantsWrite, isReady(for: Int16(POLLOUT)) {
            let code = mosquitto_loop_write(handle, 1)
            guard code == MOSQ_ERR_SUCCESS.rawValue else { return failure(code) }
        }
        let code = mosquitto_loop_misc(handle)
        keepaliveExpired = code == MOSQ_ERR_KEEPALIVE.rawValue
        return code == MOSQ_ERR_SUCCESS.rawValue ? nil : failure(code)
    }

    /// Whether the socket is ready for `events` now (without waiting).
    private func isReady(for events: Int16) -> Bool {
        var descriptor = pollfd(fd: socket, events: events, revents: 0)
        guard descriptor.fd >= 0, poll(&descriptor, 1, 0) > 0 else { return false }
        return descriptor.revents != 0
    }

    /// Writes what is queued — acknowledgements, DISCONNECT — without reading:
    /// after DISCONNECT libmosquitto refuses an incoming message as a protocol
    /// error and drops the connection before it writes anything.
    func flush() -> MQTTError? {
        let code = mosquitto_loop_write(handle, 1)
        guard code != MOSQ_ERR_SUCCESS.rawValue else { return nil }
        return failure(code)
    }

    /// Hands one message to libmosquitto; returns its message id, or the error.
    func publish(_ message: MQTTMessage) -> Result<Int32, MQTTError> {
        var mid: Int32 = 0
        var properties: OpaquePointer?
        defer { mosquitto_property_free_all(&properties) }
        if settings.protocolVersion == .v5 {
            for property in message.userProperties {
                _ = mosquitto_property_add_string_pair(&properties, Int32(MQTT_PROP_USER_PROPERTY.rawValue), property.name, property.value)
            }
        }
        let code = message.payload.withUnsafeBytes { bytes in
            mosquitto_publish_v5(handle, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, Int32(message.qos), message.retain, properties)
        }
        guard code == MOSQ_ERR_SUCCESS.rawValue else { return .failure(failure(code)) }
        return .success(mid)
    }

    /// Why libmosquitto would refuse to publish `message` at all, or nil:
    /// such a message is failed at once rather than stalling the backlog.
    static func problem(with message: MQTTMessage) -> String? {
        if let problem = PublishTopic.problem(message.topic) { return problem }
        if !(0...2).contains(message.qos) { return "QoS must be 0, 1 or 2, not \(message.qos)" }
        if message.payload.count > 268_435_455 { return "the payload is larger than MQTT allows (256 MB)" }
        return nil
    }

    func subscribe(_ filter: String) -> MQTTError? {
        let code = mosquitto_subscribe(handle, nil, filter, 1)
        return code == MOSQ_ERR_SUCCESS.rawValue ? nil : failure(code)
    }

    /// Sends DISCONNECT (the broker then does not publish the last will).
    func disconnect() {
        _ = mosquitto_disconnect(handle)
    }

    func takeCompletedMids() -> [Int32] {
        defer { completedMids.removeAll(keepingCapacity: true) }
        return completedMids
    }

    func takeReceived() -> [MQTTMessage] {
        defer {
            received.removeAll()
            receivedBytes = 0
        }
        return received
    }

    func takeSubscribeAcks() -> [Bool] {
        defer { subscribeAcks.removeAll() }
        return subscribeAcks
    }

    static func describe(_ code: Int32) -> String {
        if code == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(code))
    }
}
