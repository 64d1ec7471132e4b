import CGStreamer
import Foundation

/// Contexts that every pipeline of the process shares, kept for the life of the process.
///
/// GStreamer elements ask for a context (`need-context`) and announce one they made
/// (`have-context`); a pipeline keeps what its own elements announced, but nothing carries a
/// context from one pipeline to the next. The box builds a new ingest pipeline at every
/// reconnect, so an element that makes an expensive context made one per connection.
///
/// That is what `souphttpsrc` does: each one that finds no session makes its own (a libsoup
/// session with a thread and a `GMainContext`). When a pipeline is stopped while its request is
/// still being made (a channel torn down while it connects: a stall, a reconnect, a flip that
/// parks it), GStreamer 1.22 frees the session but its `GMainContext` stays alive, one eventfd
/// each, for good (docs/reliability.md, "The eventfds"). With one session for the process there is
/// one such context, made once, and the HTTP sources of every pipeline share it (libsoup runs
/// their requests concurrently on its thread).
///
/// `Pipeline`'s bus handler calls `handle(_:)` with every message, on the posting thread.
enum SharedContexts {
    /// Context types shared across pipelines: libsoup's HTTP session of `souphttpsrc`.
    static let types: Set<String> = ["gst.soup.session"]

    private static let lock = NSLock()
    /// The first context of each type an element announced: owned (one reference) for good.
    nonisolated(unsafe) private static var kept: [String: OpaquePointer] = [:]

    /// Answers an element's `need-context` with a kept context, and keeps the first
    /// `have-context` of each shared type. Called by the bus's sync handler.
    static func handle(_ message: UnsafeMutablePointer<GstMessage>) {
        switch fb_message_type(message) {
        case GST_MESSAGE_NEED_CONTEXT:
            var type: UnsafePointer<gchar>?
            guard gst_message_parse_context_type(message, &type) != 0, let type,
                  case let name = String(cString: type), types.contains(name),
                  let context = lock.withLock({ kept[name] }),
                  let source = fb_message_src(message) else { return }
            // Setting it on the asking element answers it: the element reads the context
            // right after posting the message.
            gst_element_set_context(fb_element(UnsafeMutableRawPointer(source)), context)
        case GST_MESSAGE_HAVE_CONTEXT:
            var context: OpaquePointer?
            gst_message_parse_have_context(message, &context)
            guard let context else { return }
            let name = String(cString: gst_context_get_context_type(context))
            let keptIt: Bool = types.contains(name) && lock.withLock {
                guard kept[name] == nil else { return false }
                kept[name] = context
                return true
            }
            if !keptIt { gst_context_unref(context) }
        default:
            return
        }
    }
}
