import CCEC
import Foundation

/// The only calls into libcec (through `Sources/CCEC/shim.h`): start a session, find the
/// adapters, open one, become the active source, end the session.
///
/// `Session` owns one `ccec_session` and the handlers its callbacks reach (boxed, retained until
/// `end()`); libcec calls the handlers on its own threads. After `end()` returns no handler runs.
enum CECSyscalls {
    /// What libcec's callbacks deliver, as plain values.
    struct Handlers: Sendable {
        /// A `cec_user_control_code` and its duration in ms (0: pressed).
        var key: @Sendable (Int, UInt32) -> Void
        /// Initiator, destination (`cec_logical_address`) and `cec_opcode`.
        var command: @Sendable (Int, Int, Int) -> Void
        /// We became (true) or stopped being (false) the active source.
        var activation: @Sendable (Bool) -> Void
        /// libcec's log: level (1 error, 2 warning, 4 notice, 8 traffic, 16 debug) and text.
        var log: @Sendable (Int, String) -> Void
    }

    fileprivate final class Box {
        let handlers: Handlers
        init(_ handlers: Handlers) { self.handlers = handlers }
        static func from(_ context: UnsafeMutableRawPointer?) -> Handlers? {
            context.map { Unmanaged<Box>.fromOpaque($0).takeUnretainedValue().handlers }
        }
    }

    final class Session {
        fileprivate let pointer: UnsafeMutablePointer<ccec_session>
        fileprivate let box: Unmanaged<Box>
        private var ended = false

        fileprivate init(pointer: UnsafeMutablePointer<ccec_session>, box: Unmanaged<Box>) {
            self.pointer = pointer
            self.box = box
        }

        /// `ccec_session_free`: closes the adapter and destroys the connection, then releases the handlers.
        func end() {
            guard !ended else { return }
            ended = true
            ccec_session_free(pointer)
            box.release()
        }

        deinit { end() }
    }

    /// `libcec_initialise` as a recording device called `name`; nil when libcec cannot start.
    static func start(name: String, handlers: Handlers) -> Session? {
        let box = Unmanaged.passRetained(Box(handlers))
        let onKey: ccec_key_handler = { context, code, duration in Box.from(context)?.key(Int(code), duration) }
        let onCommand: ccec_command_handler = { context, initiator, destination, opcode in
            Box.from(context)?.command(Int(initiator), Int(destination), Int(opcode))
        }
        let onActivation: ccec_activation_handler = { context, activated in Box.from(context)?.activation(activated != 0) }
        let onLog: ccec_log_handler = { context, level, message in
            guard let message else { return }
            Box.from(context)?.log(Int(level), String(cString: message))
        }
        guard let pointer = ccec_session_new(name, box.toOpaque(), onKey, onCommand, onActivation, onLog) else {
            box.release()
            return nil
        }
        return Session(pointer: pointer, box: box)
    }

    /// `libcec_detect_adapters`: how many there are (negative on error) and the first one's port.
    static func detect(_ session: Session) -> (count: Int, port: String?) {
        var port = [CChar](repeating: 0, count: 1024)
        var type: Int32 = 0
        let count = port.withUnsafeMutableBufferPointer { ccec_detect(session.pointer, $0.baseAddress, Int32($0.count), &type) }
        let name = count > 0 ? String(decoding: port.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        return (Int(count), name)
    }

    /// `libcec_open`: true when the adapter on `port` opened within `timeoutMilliseconds`.
    static func open(_ session: Session, port: String, timeoutMilliseconds: UInt32) -> Bool {
        ccec_open(session.pointer, port, timeoutMilliseconds) != 0
    }

    /// `libcec_set_active_source`: one-touch play.
    static func becomeActiveSource(_ session: Session) -> Bool {
        ccec_set_active_source(session.pointer) != 0
    }
}
