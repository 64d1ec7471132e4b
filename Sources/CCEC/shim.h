// libcec's C interface (HDMI-CEC adapters) for the one Swift file that talks to it
// (Sources/Control/Box/CECSyscalls.swift). libcec keeps pointers to the configuration and the
// callbacks for as long as the connection lives, so both live in a `ccec_session` here, with
// trampolines that hand plain values to the Swift handlers. Callbacks run on libcec's threads.
#ifndef FLIPBOX_CCEC_SHIM_H
#define FLIPBOX_CCEC_SHIM_H

#include <libcec/cecc.h>
#include <stdlib.h>
#include <string.h>

/// A remote key: `keycode` is a `cec_user_control_code`, `duration` 0 for a press.
typedef void (*ccec_key_handler)(void *context, int keycode, unsigned int duration);
/// A CEC command addressed to us or broadcast: `cec_logical_address`es and a `cec_opcode`.
typedef void (*ccec_command_handler)(void *context, int initiator, int destination, int opcode);
/// libcec made us the active source (1) or another device took it (0).
typedef void (*ccec_activation_handler)(void *context, int activated);
/// libcec's own log: `level` is a `cec_log_level` (1 error, 2 warning, 4 notice, 8 traffic, 16 debug).
typedef void (*ccec_log_handler)(void *context, int level, const char *message);

typedef struct ccec_session {
    libcec_configuration configuration;
    ICECCallbacks callbacks;
    libcec_connection_t connection;
    int opened;
    void *context;
    ccec_key_handler on_key;
    ccec_command_handler on_command;
    ccec_activation_handler on_activation;
    ccec_log_handler on_log;
} ccec_session;

static inline void ccec_key_trampoline(void *param, const cec_keypress *key) {
    ccec_session *s = (ccec_session *)param;
    if (s && s->on_key && key) s->on_key(s->context, (int)key->keycode, key->duration);
}

static inline void ccec_command_trampoline(void *param, const cec_command *command) {
    ccec_session *s = (ccec_session *)param;
    if (s && s->on_command && command && command->opcode_set)
        s->on_command(s->context, (int)command->initiator, (int)command->destination, (int)command->opcode);
}

static inline void ccec_activation_trampoline(void *param, const cec_logical_address address, const uint8_t activated) {
    (void)address;
    ccec_session *s = (ccec_session *)param;
    if (s && s->on_activation) s->on_activation(s->context, activated ? 1 : 0);
}

static inline void ccec_log_trampoline(void *param, const cec_log_message *message) {
    ccec_session *s = (ccec_session *)param;
    if (s && s->on_log && message && message->message) s->on_log(s->context, (int)message->level, message->message);
}

/// `libcec_initialise` for one recording device (the type that TVs send channel keys to) named
/// `name`, becoming the active source when it opens (one-touch play). NULL when libcec cannot
/// start. Free with `ccec_session_free`.
static inline ccec_session *ccec_session_new(const char *name, void *context, ccec_key_handler on_key,
                                             ccec_command_handler on_command, ccec_activation_handler on_activation,
                                             ccec_log_handler on_log) {
    ccec_session *s = (ccec_session *)calloc(1, sizeof *s);
    if (!s) return NULL;
    s->context = context;
    s->on_key = on_key;
    s->on_command = on_command;
    s->on_activation = on_activation;
    s->on_log = on_log;
    libcec_clear_configuration(&s->configuration);
    s->configuration.clientVersion = LIBCEC_VERSION_CURRENT;
    strncpy(s->configuration.strDeviceName, name, sizeof s->configuration.strDeviceName - 1);
    s->configuration.deviceTypes.types[0] = CEC_DEVICE_TYPE_RECORDING_DEVICE;
    s->configuration.bActivateSource = 1;
    memset(&s->callbacks, 0, sizeof s->callbacks);
    s->callbacks.keyPress = ccec_key_trampoline;
    s->callbacks.commandReceived = ccec_command_trampoline;
    s->callbacks.sourceActivated = ccec_activation_trampoline;
    s->callbacks.logMessage = ccec_log_trampoline;
    s->configuration.callbacks = &s->callbacks;
    s->configuration.callbackParam = s;
    s->connection = libcec_initialise(&s->configuration);
    if (!s->connection) {
        free(s);
        return NULL;
    }
    return s;
}

/// `libcec_detect_adapters`: the number of adapters (0: none, negative: error); the first one's
/// port goes to `port` (`size` bytes) and its kind (`cec_adapter_type`) to `type`.
static inline int ccec_detect(ccec_session *s, char *port, int size, int *type) {
    cec_adapter_descriptor list[4];
    memset(list, 0, sizeof list);
    int8_t count = libcec_detect_adapters(s->connection, list, 4, NULL, 1);
    if (count > 0 && port && size > 0) {
        strncpy(port, list[0].strComName, (size_t)size - 1);
        port[size - 1] = 0;
        if (type) *type = (int)list[0].adapterType;
    }
    return count;
}

/// `libcec_open` on `port`, waiting up to `timeout_ms`: 1 on success, 0 on failure.
static inline int ccec_open(ccec_session *s, const char *port, unsigned int timeout_ms) {
    s->opened = libcec_open(s->connection, port, timeout_ms) ? 1 : 0;
    return s->opened;
}

/// `libcec_set_active_source`: one-touch play (the TV switches to us, and turns on).
static inline int ccec_set_active_source(ccec_session *s) {
    return libcec_set_active_source(s->connection, CEC_DEVICE_TYPE_RESERVED);
}

/// `libcec_close` when open, then `libcec_destroy`; no callback runs after this returns.
static inline void ccec_session_free(ccec_session *s) {
    if (!s) return;
    if (s->opened) libcec_close(s->connection);
    libcec_destroy(s->connection);
    free(s);
}

#endif
