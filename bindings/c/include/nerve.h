/* nerve's C ABI (libnerve_c). Generated from bindings/c by cbindgen: do not edit.
 * Conventions: docs/design/c-api.md. */

#ifndef NERVE_H
#define NERVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
/* Declaring a C struct as a message type: its fields' names, kinds, offsets and sizes give the
 * description and fingerprint Rust's #[derive(Message)] and Python's @nerve.message give the
 * same definition, so the struct shares topics with them, and a disagreement is
 * NERVE_E_TYPE_MISMATCH naming the first field that differs.
 *
 *   typedef struct { double left; double right; uint32_t seq; uint32_t _pad0; } WheelCmd;
 *   NERVE_STRUCT(WheelCmd, "demo/WheelCmd",
 *                NERVE_FIELD(WheelCmd, left, "f64"), NERVE_FIELD(WheelCmd, right, "f64"),
 *                NERVE_FIELD(WheelCmd, seq, "u32"), NERVE_FIELD(WheelCmd, _pad0, "u32"))
 *   nerve_type t; WheelCmd_nerve_type(&t);  ...  nerve_topic_open("wheels", &t, NULL, &topic);
 *
 * Kinds: "u8" ... "u64", "i8" ... "i64", "f32", "f64", "bool", "text[N]", a standard struct
 * ("Header", "Vector3"), any of them as "T[N]"; NERVE_FIELD_OF nests a struct declared with
 * NERVE_NESTED_STRUCT (count 0: one, N: an array of N). Padding the compiler would insert must
 * be declared as _padN fields (Rust's layout has none implicit). */
#ifdef __cplusplus
#define NERVE_ALIGNOF(T) alignof(T)
#else
#define NERVE_ALIGNOF(T) _Alignof(T)
#endif
#define NERVE_FIELD(T, member, kind) \
    { #member, kind, NULL, 0, offsetof(T, member), sizeof(((T *)0)->member) }
#define NERVE_FIELD_OF(T, member, type_fn, count) \
    { #member, NULL, type_fn, count, offsetof(T, member), sizeof(((T *)0)->member) }
#define NERVE_DECLARE_(T, NAME, KIND, ELEM, ...)                                            \
    static inline int32_t T##_nerve_type(nerve_type *out) {                                 \
        static const nerve_field fields_[] = {__VA_ARGS__};                                 \
        return nerve_type_declare(NAME, KIND, fields_, sizeof fields_ / sizeof fields_[0],  \
                                  sizeof(T), NERVE_ALIGNOF(T), ELEM, out);                  \
    }
/* T_nerve_type(): fixed message type NAME of struct T. */
#define NERVE_STRUCT(T, NAME, ...) NERVE_DECLARE_(T, NAME, NERVE_KIND_FIXED, NULL, __VA_ARGS__)
/* T_nerve_type(): a struct other declared types nest (named T). */
#define NERVE_NESTED_STRUCT(T, ...) NERVE_DECLARE_(T, #T, NERVE_KIND_STRUCT, NULL, __VA_ARGS__)
/* Log records on the domain's log topic, with this file and line. */
#define NERVE_DEBUG(msg) nerve_log(NERVE_LOG_DEBUG, __FILE__, __LINE__, msg)
#define NERVE_INFO(msg) nerve_log(NERVE_LOG_INFO, __FILE__, __LINE__, msg)
#define NERVE_WARN(msg) nerve_log(NERVE_LOG_WARN, __FILE__, __LINE__, msg)
#define NERVE_ERROR(msg) nerve_log(NERVE_LOG_ERROR, __FILE__, __LINE__, msg)
#define NERVE_DECLARE_CHUNKED_(H, NAME, E, E_KIND, E_FN, ...)                              static inline int32_t H##_nerve_type(nerve_type *out) {                                 static const nerve_field fields_[] = {__VA_ARGS__};                                 static const nerve_field elem_ = {"elem", E_KIND, E_FN, 0, 0, sizeof(E)};           return nerve_type_declare(NAME, NERVE_KIND_CHUNKED, fields_,                        sizeof fields_ / sizeof fields_[0], sizeof(H),            NERVE_ALIGNOF(H), &elem_, out);                           }
/* H_nerve_type(): chunked message type NAME: header struct H, elements E of kind E_KIND. */
#define NERVE_CHUNKED_STRUCT(H, NAME, E, E_KIND, ...)                                       NERVE_DECLARE_CHUNKED_(H, NAME, E, E_KIND, NULL, __VA_ARGS__)
/* The same with elements of a declared struct E (its type function E_FN). */
#define NERVE_CHUNKED_STRUCT_OF(H, NAME, E, E_FN, ...)                                      NERVE_DECLARE_CHUNKED_(H, NAME, E, NULL, E_FN, __VA_ARGS__)


// `nerve_type_declare`'s kind for a plain struct other declared types nest (it crosses no
// topic by itself).
#define NERVE_KIND_STRUCT 0

// `nerve_log` levels.
#define NERVE_LOG_TRACE 0

// Debug.
#define NERVE_LOG_DEBUG 1

// Info.
#define NERVE_LOG_INFO 2

// Warning.
#define NERVE_LOG_WARN 3

// Error.
#define NERVE_LOG_ERROR 4

// A parameter value refused: of another type than declared, out of its range, read-only, or
// rejected (the text names node, parameter and value).
#define NERVE_E_PARAM_REJECTED -30

// The service has no live server.
#define NERVE_E_NO_SERVER -20

// No response within the call's timeout (the server is alive).
#define NERVE_E_TIMEOUT -21

// The server died or stopped during the call.
#define NERVE_E_SERVER_DIED -22

// The handler failed; the text is its message.
#define NERVE_E_HANDLER -23

// The server could not decode the request.
#define NERVE_E_BAD_REQUEST -24

// Another live server serves the service already.
#define NERVE_E_ALREADY_SERVED -25

// Success.
#define NERVE_OK 0

// Nothing to receive: `nerve_recv` found no message within its timeout. Not a failure;
// `nerve_last_error()` is not set.
#define NERVE_EMPTY 1

// A null pointer, a length that does not fit, a string that is not UTF-8, an option out of
// range.
#define NERVE_E_INVALID_ARGUMENT -1

// The handle was closed (or released) before this call.
#define NERVE_E_CLOSED -2

// Joining a topic that does not exist.
#define NERVE_E_NOT_FOUND -3

// The topic exists with another type (the text names both and the first field that differs).
#define NERVE_E_TYPE_MISMATCH -4

// The topic exists with other QoS settings.
#define NERVE_E_QOS_MISMATCH -5

// The topic's shared memory is damaged.
#define NERVE_E_CORRUPT -6

// The shared-memory file system is full.
#define NERVE_E_NO_SPACE -7

// A reliable topic stayed full for the publisher's whole timeout, or the chunk pool is
// exhausted.
#define NERVE_E_FULL -8

// A message larger than the topic allows.
#define NERVE_E_TOO_LARGE -9

// The caller's buffer cannot hold the message (the needed length is returned).
#define NERVE_E_BUFFER_TOO_SMALL -10

// A call that does not fit the topic's kind of message (bytes for a chunked type, a loan for
// a fixed one), or a size that is not the type's.
#define NERVE_E_WRONG_SIZE -11

// The handle is in use by another thread right now (a subscriber receives on one thread at a
// time).
#define NERVE_E_BUSY -12

// Every endpoint record of the topic is taken.
#define NERVE_E_TOO_MANY_ENDPOINTS -13

// The operating system refused.
#define NERVE_E_IO -14

// nerve panicked: a bug in nerve (the text says where). The handle may be unusable.
#define NERVE_E_PANIC -99

// `nerve_topic_options.domain`: `$NERVE_DOMAIN`, or 0.
#define NERVE_DOMAIN_DEFAULT UINT32_MAX

// `nerve_topic_options.reliability`: best effort (the default): a slow subscriber loses the
// oldest messages, counted.
#define NERVE_BEST_EFFORT 0

// Reliable: a publisher waits for room (up to its timeout) rather than overwrite.
#define NERVE_RELIABLE 1

// Latest only: a subscriber sees the newest message.
#define NERVE_LATEST_ONLY 2

// `nerve_type.kind`: copied into the ring slot (a plain struct).
#define NERVE_KIND_FIXED 1

// `nerve_type.kind`: a header and elements in a shared chunk (images, point clouds).
#define NERVE_KIND_CHUNKED 2

// `nerve_event.kind`: a topic appeared (or was there when the watch began).
#define NERVE_TOPIC_APPEARED 1

// A topic went (removed, replaced, or its in-process owner died).
#define NERVE_TOPIC_GONE 2

// A publisher or subscriber appeared.
#define NERVE_ENDPOINT_APPEARED 3

// A publisher or subscriber went (closed, or its process died).
#define NERVE_ENDPOINT_GONE 4

// A process holding endpoints died without closing them.
#define NERVE_PROCESS_DIED 5

// The registry was corrupt and was rebuilt (`topic` holds the reason).
#define NERVE_REGISTRY_REBUILT 6

// A service client (opaque).
typedef struct nerve_client nerve_client;

// An e-stop listener (opaque).
typedef struct nerve_estop nerve_estop;

// A client of another node's parameters (opaque).
typedef struct nerve_param_client nerve_param_client;

// A node's parameters, served to other processes while open (opaque).
typedef struct nerve_params nerve_params;

// A publisher (opaque).
typedef struct nerve_publisher nerve_publisher;

// Where a C handler puts its answer (valid during the handler's call only).
typedef struct nerve_reply nerve_reply;

// A running server (opaque); closing it stops serving.
typedef struct nerve_server nerve_server;

// A subscriber (opaque).
typedef struct nerve_subscriber nerve_subscriber;

// An open topic (opaque: C holds pointers to it only).
typedef struct nerve_topic nerve_topic;

// A watch on a domain (opaque).
typedef struct nerve_watch nerve_watch;

// A chunk loaned for one message, filled in place and sent with `nerve_loan_send` (or given
// back with `nerve_loan_discard`). `header` and `data` lie in shared memory; `data` is
// 64-byte aligned. The first three fields are nerve's.
typedef struct nerve_loan {
  // The publisher that lent it.
  struct nerve_publisher *owner;
  // nerve's: which of the publisher's loans.
  uint32_t slot;
  // nerve's: which lending of that slot.
  uint32_t generation;
  // The message's header (the type's `size` bytes).
  uint8_t *header;
  // Bytes at `header`.
  size_t header_len;
  // The payload.
  uint8_t *data;
  // Bytes at `data` (as asked).
  size_t data_len;
} nerve_loan;

// A received chunked message, read in place (zero copy: `header` and `data` point into the
// shared segment) until `nerve_sample_release`. Holding it keeps its chunk from reuse. The
// first three fields are nerve's.
typedef struct nerve_sample {
  // The subscriber that received it.
  struct nerve_subscriber *owner;
  // nerve's: which of the subscriber's samples.
  uint32_t slot;
  // nerve's: which lending of that slot.
  uint32_t generation;
  // The message's header.
  const uint8_t *header;
  // Bytes at `header`.
  size_t header_len;
  // The payload (64-byte aligned).
  const uint8_t *data;
  // Bytes at `data`.
  size_t data_len;
} nerve_sample;

// A message type as topics store it: what a generated message struct's `NERVE_TYPE_...`
// constant holds, and what every language's definition of one type agrees on.
typedef struct nerve_type {
  // The type's name, e.g. `"geometry_msgs/Twist"` (NUL-terminated).
  const char *name;
  // `NERVE_KIND_FIXED` or `NERVE_KIND_CHUNKED`.
  uint32_t kind;
  // Bytes of the message (fixed) or of its header (chunked).
  uint32_t size;
  // Alignment of the message or header.
  uint32_t align;
  // Bytes of one payload element (chunked; 0 for fixed).
  uint32_t elem_size;
  // The hash of the field layout: two definitions with different fields differ here.
  uint64_t layout_hash;
  // The type's description as nerve's schemas encode it (fields, offsets, units), carried
  // by the topic so tools can read its messages; NULL with length 0 for none.
  const uint8_t *description;
  // Bytes at `description`.
  size_t description_len;
} nerve_type;

// Fills a `nerve_type` for a nested struct (a `NERVE_STRUCT` type's function).
typedef int32_t (*nerve_type_fn)(struct nerve_type *out);

// One field of a declared struct; written by the `NERVE_FIELD...` macros.
typedef struct nerve_field {
  // The field's name (NUL-terminated).
  const char *name;
  // Its kind: `"u8"` … `"u64"`, `"i8"` … `"i64"`, `"f32"`, `"f64"`, `"bool"`, `"text[N]"`,
  // a standard struct's name (`"Header"`, `"Vector3"`), any of them as `"T[N]"`; NULL when
  // `nested` gives the type.
  const char *kind;
  // A declared struct's type function, for a field of a user struct (`kind` NULL).
  nerve_type_fn nested;
  // With `nested`: 0 for one struct, N for an array of N.
  uint32_t count;
  // `offsetof` the field in the C struct.
  size_t offset;
  // `sizeof` the field in the C struct.
  size_t size;
} nerve_field;

// A C handler: `request` (`request_len` bytes) in; answer with `nerve_reply_set` or
// `nerve_reply_error` on `reply`, and return `NERVE_OK`. Runs on nerve's threads (as many at
// once as the server has workers), with the `context` given at `nerve_server_open`.
typedef int32_t (*nerve_handler)(void *context,
                                 const uint8_t *request,
                                 size_t request_len,
                                 struct nerve_reply *reply);

// How a topic is opened; start from `nerve_topic_options_default()`.
typedef struct nerve_topic_options {
  // `NERVE_DOMAIN_DEFAULT`, or the domain.
  uint32_t domain;
  // Ring capacity in messages (rounded up to a power of two); 0: the default.
  uint32_t depth;
  // `NERVE_BEST_EFFORT`, `NERVE_RELIABLE` or `NERVE_LATEST_ONLY`.
  uint32_t reliability;
  // Publishers and subscribers the topic can hold at once; 0: the default.
  uint32_t max_endpoints;
  // Largest chunked message in bytes; 0: the default.
  uint64_t max_message_bytes;
  // Chunks in a chunked topic's pool; 0: the default.
  uint32_t chunks;
  // 1: the topic lives on this process's heap, for its threads only (no shared memory);
  // 0: shared memory.
  uint32_t in_process;
} nerve_topic_options;

// A subscriber's counters.
typedef struct nerve_subscriber_stats {
  // Messages received.
  uint64_t received;
  // Messages overwritten before this subscriber read them.
  uint64_t lost;
  // Messages skipped because a publisher died while writing them.
  uint64_t dropped;
  // Slots whose content was damaged (a hostile or broken writer), skipped.
  uint64_t corrupt;
} nerve_subscriber_stats;

// One change in a domain.
typedef struct nerve_event {
  // `NERVE_TOPIC_APPEARED` … `NERVE_REGISTRY_REBUILT`.
  uint32_t kind;
  // The process (endpoint events, `NERVE_PROCESS_DIED`, an in-process topic's owner); 0
  // when none.
  uint32_t pid;
  // Endpoint events: a publisher (true) or a subscriber.
  bool publisher;
  // The topic's name (NUL-terminated; for `NERVE_REGISTRY_REBUILT`, the reason, cut to fit).
  char topic[256];
  // `NERVE_TOPIC_APPEARED`: its message type's name.
  char type_name[128];
} nerve_event;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

// Loans a chunk for a message of `payload_bytes` (a whole number of the type's elements)
// and fills `out`; write the header and payload through its pointers, then send it.
// `NERVE_E_WRONG_SIZE` on a fixed type or a length that is not whole elements,
// `NERVE_E_TOO_LARGE` over the topic's limit, `NERVE_E_FULL` when the pool has no chunk.
//
// # Safety
// `publisher` is a publisher handle; `out` is valid for a write.
int32_t nerve_loan_open(struct nerve_publisher *publisher,
                        size_t payload_bytes,
                        struct nerve_loan *out);

// Publishes a filled loan (O(1): a descriptor goes into the ring) and clears `*loan`.
//
// # Safety
// `loan` is NULL or points to a `nerve_loan` from `nerve_loan_open`.
int32_t nerve_loan_send(struct nerve_loan *loan);

// Gives a loan's chunk back unsent and clears `*loan`.
//
// # Safety
// `loan` is NULL or points to a `nerve_loan` from `nerve_loan_open`.
int32_t nerve_loan_discard(struct nerve_loan *loan);

// Receives one chunked message in place into `out`: `NERVE_OK`, `NERVE_EMPTY` when none came
// within `timeout_ns` (0: do not wait; negative: wait for ever), `NERVE_E_WRONG_SIZE` on a
// fixed topic (use `nerve_recv`), `NERVE_E_FULL` when this subscriber holds too many samples.
//
// # Safety
// `subscriber` is a subscriber handle; `out` is valid for a write.
int32_t nerve_recv_sample(struct nerve_subscriber *subscriber,
                          int64_t timeout_ns,
                          struct nerve_sample *out);

// Releases a sample (its chunk may be reused; its pointers must not be used any more) and
// clears `*sample`. A second release is `NERVE_E_CLOSED`.
//
// # Safety
// `sample` is NULL or points to a `nerve_sample` from `nerve_recv_sample` (or cleared).
int32_t nerve_sample_release(struct nerve_sample *sample);

// Declares a C struct as message type `name` and fills `out` with its `nerve_type`
// (description included; the pointers stay valid for the process's life). `kind` is
// `NERVE_KIND_FIXED`, `NERVE_KIND_CHUNKED` (then `elem` gives the element type: its `kind` or
// `nested`, and its `size`) or `NERVE_KIND_STRUCT` (a struct other declarations nest).
// `fields` are the struct's `n_fields` fields in order; `size` and `align` its `sizeof` and
// alignment. A declaration that is not how the compiler laid the struct out, or that Rust
// would lay out differently (implicit padding), is `NERVE_E_TYPE_MISMATCH` or
// `NERVE_E_INVALID_ARGUMENT` naming the field. Use the `NERVE_STRUCT` macros rather than this
// call.
//
// # Safety
// `name` is NUL-terminated; `fields` points to `n_fields` valid `nerve_field`s; `elem` is
// NULL or valid; `out` is valid for a write.
int32_t nerve_type_declare(const char *name,
                           uint32_t kind,
                           const struct nerve_field *fields,
                           size_t n_fields,
                           size_t size,
                           size_t align,
                           const struct nerve_field *elem,
                           struct nerve_type *out);

// Publishes `message` at `level` from `file`:`line` (NULL file: none). Use the
// `NERVE_INFO(msg)` … macros, which pass `__FILE__` and `__LINE__`.
//
// # Safety
// `file` is NULL or NUL-terminated; `message` is NUL-terminated.
int32_t nerve_log(uint32_t level, const char *file, uint32_t line, const char *message);

// Sets the lowest level `nerve_log` publishes (default `NERVE_LOG_INFO`).
int32_t nerve_log_set_level(uint32_t level);

// Records `nerve_log` could not publish (no chunk free at that instant).
uint64_t nerve_log_dropped(void);

// Opens node `node`'s parameters in `domain` and serves them (`nerve param list <node>`
// sees them) until `nerve_params_close`.
//
// # Safety
// `node` is NUL-terminated; `out` is valid for a write.
int32_t nerve_params_open(const char *node, uint32_t domain, struct nerve_params **out);

// Stops serving and closes the parameters.
//
// # Safety
// `params` is NULL or a parameters handle.
int32_t nerve_params_close(struct nerve_params *params);

// Declares parameter `name` with its default (YAML text: `0.5` is a float, `3` an int,
// `true`, `fast`, `[1, 2]`), allowed between `min` and `max` when `min <= max` (ints and
// floats; pass `min > max` for no range), with a description for tools (NULL for none). A
// value loaded or set before is kept if valid.
//
// # Safety
// `params` is a parameters handle; `name` and `default_value` are NUL-terminated;
// `description` is NULL or NUL-terminated.
int32_t nerve_param_declare(struct nerve_params *params,
                            const char *name,
                            const char *default_value,
                            double min,
                            double max,
                            const char *description);

// A float parameter (an int one converted) into `out`.
//
// # Safety
// `params` is a parameters handle; `name` is NUL-terminated; `out` valid for a write.
int32_t nerve_param_get_f64(struct nerve_params *params, const char *name, double *out);

// An int parameter into `out`.
//
// # Safety
// As `nerve_param_get_f64`.
int32_t nerve_param_get_i64(struct nerve_params *params, const char *name, int64_t *out);

// A bool parameter into `out`.
//
// # Safety
// As `nerve_param_get_f64`.
int32_t nerve_param_get_bool(struct nerve_params *params, const char *name, bool *out);

// Any parameter as text (a string as itself, others in YAML) into `(buf, cap)`,
// NUL-terminated; its length at `len` (NULL: not wanted). `NERVE_E_BUFFER_TOO_SMALL` gives
// the length needed.
//
// # Safety
// `params` is a parameters handle; `name` is NUL-terminated; `buf` holds `cap` bytes; `len`
// is NULL or valid for a write.
int32_t nerve_param_get_text(struct nerve_params *params,
                             const char *name,
                             char *buf,
                             size_t cap,
                             size_t *len);

// Sets parameter `name` to `value` (YAML text), checked against its type and range.
//
// # Safety
// `params` is a parameters handle; `name` and `value` are NUL-terminated.
int32_t nerve_param_set(struct nerve_params *params, const char *name, const char *value);

// Opens a client of node `node`'s parameters in `domain`.
//
// # Safety
// `node` is NUL-terminated; `out` is valid for a write.
int32_t nerve_param_client_open(const char *node, uint32_t domain, struct nerve_param_client **out);

// Closes a parameter client.
//
// # Safety
// `client` is NULL or a parameter client handle.
int32_t nerve_param_client_close(struct nerve_param_client *client);

// The remote node's parameter `name` as text into `(buf, cap)` (as `nerve_param_get_text`),
// waiting up to `timeout_ns` for the node.
//
// # Safety
// `client` is a parameter client handle; `name` is NUL-terminated; `buf` holds `cap` bytes;
// `len` is NULL or valid for a write.
int32_t nerve_param_client_get(struct nerve_param_client *client,
                               const char *name,
                               int64_t timeout_ns,
                               char *buf,
                               size_t cap,
                               size_t *len);

// Sets the remote node's parameter `name` to `value` (YAML text), waiting up to `timeout_ns`;
// the node's refusal is `NERVE_E_PARAM_REJECTED` with its reason.
//
// # Safety
// `client` is a parameter client handle; `name` and `value` are NUL-terminated.
int32_t nerve_param_client_set(struct nerve_param_client *client,
                               const char *name,
                               const char *value,
                               int64_t timeout_ns);

// Opens a client of service `name` in `domain` (`NERVE_DOMAIN_DEFAULT` for the default).
//
// # Safety
// `name` is a NUL-terminated string; `out` is valid for a write.
int32_t nerve_client_open(const char *name, uint32_t domain, struct nerve_client **out);

// Closes a client.
//
// # Safety
// `client` is NULL or a client handle.
int32_t nerve_client_close(struct nerve_client *client);

// Calls the service with `request` and waits up to `timeout_ns` for the response, copied into
// `(response, cap)` with its length at `response_len`. `NERVE_E_BUFFER_TOO_SMALL` gives the
// length needed (the response is lost); the other failures say why (`NERVE_E_NO_SERVER`,
// `NERVE_E_TIMEOUT`, `NERVE_E_HANDLER` with the handler's message, ...).
//
// # Safety
// `client` is a client handle; `request` points to `request_len` readable bytes; `response`
// to `cap` writable bytes; `response_len` is valid for a write.
int32_t nerve_call(struct nerve_client *client,
                   const uint8_t *request,
                   size_t request_len,
                   int64_t timeout_ns,
                   uint8_t *response,
                   size_t cap,
                   size_t *response_len);

// Answers with `len` bytes at `bytes` (copied).
//
// # Safety
// `reply` is the pointer the handler was given, during its call; `bytes` points to `len`
// readable bytes.
int32_t nerve_reply_set(struct nerve_reply *reply, const uint8_t *data, size_t len);

// Answers with a failure: the caller gets `NERVE_E_HANDLER` with `message`.
//
// # Safety
// `reply` is the pointer the handler was given, during its call; `message` is a
// NUL-terminated string.
int32_t nerve_reply_error(struct nerve_reply *reply, const char *message);

// Serves `name` in `domain` with `handler` on `workers` threads (0 or 1: one thread, the
// lowest latency; at most 256, else `NERVE_E_INVALID_ARGUMENT`) until `nerve_server_close`.
// `NERVE_E_ALREADY_SERVED` when another live server has it.
//
// # Safety
// `name` is a NUL-terminated string; `handler` may be called from nerve's threads, `workers`
// at once, with `context`, until the server is closed; `out` is valid for a write.
int32_t nerve_server_open(const char *name,
                          uint32_t domain,
                          uint32_t workers,
                          nerve_handler handler,
                          void *context,
                          struct nerve_server **out);

// Stops serving (waits for handlers running now to return). A handler may close its own
// server: the call returns `NERVE_OK` once the other handlers have returned, and the
// calling handler's thread ends when it returns.
//
// # Safety
// `server` is NULL or a server handle.
int32_t nerve_server_close(struct nerve_server *server);

// Fills `out` with the standard message type `name`: its type name (`"nerve/CmdVel"`) or its
// class name in other languages (`"CmdVel"`, `"Imu"`, `"Image"`; a nested struct's, as
// `"Vector3"`, gives a `NERVE_KIND_STRUCT` type). The pointers in `out` stay valid for the
// process's life. `NERVE_E_NOT_FOUND` for a name that is none of them.
//
// # Safety
// `name` is a NUL-terminated string; `out` is valid for a write.
int32_t nerve_standard_type(const char *name, struct nerve_type *out);

// `nerve_standard_type`, checked against the layout hash the caller was compiled with (what
// the generated `nerve/msgs.h` passes): a header of another nerve version than the library is
// `NERVE_E_TYPE_MISMATCH` here, rather than messages read with the wrong layout.
//
// # Safety
// As `nerve_standard_type`.
int32_t nerve_standard_type_checked(const char *name, uint64_t layout_hash, struct nerve_type *out);

// The text of this thread's last failed call (`""` if none): the same text as nerve's Rust
// errors, naming the topic and what to do. Valid until this thread's next failing call; copy
// it to keep it.
const char *nerve_last_error(void);

// Every option at its default.
struct nerve_topic_options nerve_topic_options_default(void);

// Opens topic `name` of `type` (creating it if it does not exist) with `options` (NULL: the
// defaults), and stores the handle at `out`. A topic that exists with another type is
// `NERVE_E_TYPE_MISMATCH`, naming both.
//
// # Safety
// `name` is a NUL-terminated string; `type` points to a `nerve_type` whose `name` is one and
// whose `description` holds `description_len` bytes; `options` is NULL or valid; `out` is
// valid for a write.
int32_t nerve_topic_open(const char *name,
                         const struct nerve_type *type,
                         const struct nerve_topic_options *options,
                         struct nerve_topic **out);

// Joins topic `name` of `domain` (`NERVE_DOMAIN_DEFAULT` for the default) as it exists, with
// its type and settings; `NERVE_E_NOT_FOUND` if there is none.
//
// # Safety
// `name` is a NUL-terminated string; `out` is valid for a write.
int32_t nerve_topic_join(const char *name, uint32_t domain, struct nerve_topic **out);

// Closes a topic handle (its publishers and subscribers stay open). A second close, or a use
// after it, is `NERVE_E_CLOSED`.
//
// # Safety
// `topic` is NULL or a handle from `nerve_topic_open` / `nerve_topic_join`.
int32_t nerve_topic_close(struct nerve_topic *topic);

// The largest payload of a chunked message on `topic`, in bytes, into `out` (0 for a fixed
// type).
//
// # Safety
// `topic` is a topic handle; `out` is valid for a write.
int32_t nerve_topic_max_payload_bytes(const struct nerve_topic *topic, uint64_t *out);

// Opens a publisher on `topic`.
//
// # Safety
// `topic` is a topic handle; `out` is valid for a write.
int32_t nerve_publisher_open(const struct nerve_topic *topic, struct nerve_publisher **out);

// Closes a publisher.
//
// # Safety
// `publisher` is NULL or a publisher handle.
int32_t nerve_publisher_close(struct nerve_publisher *publisher);

// Publishes one fixed message: exactly the type's `size` bytes at `message`, copied into the
// ring. `NERVE_E_WRONG_SIZE` for another length or a chunked type; `NERVE_E_FULL` when a
// reliable topic stays full.
//
// # Safety
// `publisher` is a publisher handle; `message` points to `len` readable bytes.
int32_t nerve_publish(const struct nerve_publisher *publisher, const uint8_t *message, size_t len);

// Opens a subscriber on `topic`, starting with up to `history` recent messages (0: only new
// ones).
//
// # Safety
// `topic` is a topic handle; `out` is valid for a write.
int32_t nerve_subscriber_open(const struct nerve_topic *topic,
                              uint64_t history,
                              struct nerve_subscriber **out);

// Closes a subscriber.
//
// # Safety
// `subscriber` is NULL or a subscriber handle.
int32_t nerve_subscriber_close(struct nerve_subscriber *subscriber);

// Receives one fixed message into `(buf, cap)` and stores its length at `len`: `NERVE_OK`,
// `NERVE_EMPTY` when none came within `timeout_ns` (0: do not wait; negative: wait for ever),
// `NERVE_E_BUFFER_TOO_SMALL` (with the needed length at `len`; the message is lost to this
// subscriber), `NERVE_E_WRONG_SIZE` on a chunked topic.
//
// # Safety
// `subscriber` is a subscriber handle; `buf` points to `cap` writable bytes; `len` is valid for
// a write.
int32_t nerve_recv(struct nerve_subscriber *subscriber,
                   int64_t timeout_ns,
                   uint8_t *buf,
                   size_t cap,
                   size_t *len);

// The subscriber's counters into `out`.
//
// # Safety
// `subscriber` is a subscriber handle; `out` is valid for a write.
int32_t nerve_subscriber_get_stats(struct nerve_subscriber *subscriber,
                                   struct nerve_subscriber_stats *out);

// Watches `domain`: every topic there now comes first as `NERVE_TOPIC_APPEARED` (with its
// endpoints), then changes as they happen.
//
// # Safety
// `out` is valid for a write.
int32_t nerve_watch_open(uint32_t domain, struct nerve_watch **out);

// The next change within `timeout_ns` (0: do not wait; negative: wait for ever) into `out`;
// `NERVE_EMPTY` when nothing changed in time.
//
// # Safety
// `watch` is a watch handle; `out` is valid for a write.
int32_t nerve_watch_next(struct nerve_watch *watch, int64_t timeout_ns, struct nerve_event *out);

// Closes a watch.
//
// # Safety
// `watch` is NULL or a watch handle.
int32_t nerve_watch_close(struct nerve_watch *watch);

// Triggers the e-stop of every scheduler and listener on `nerve/estop` in `domain`, from this
// process, with `reason` (cut to 48 bytes).
//
// # Safety
// `reason` is NUL-terminated.
int32_t nerve_estop_trigger(uint32_t domain, const char *reason);

// Listens for e-stops on `nerve/estop` in `domain`, from now on (open it at start-up: a
// driver's motors stop on the first).
//
// # Safety
// `out` is valid for a write.
int32_t nerve_estop_open(uint32_t domain, struct nerve_estop **out);

// Waits up to `timeout_ns` (0: do not wait; negative: for ever) for an e-stop: `NERVE_OK` with
// its reason in `(reason, cap)` (NUL-terminated, cut to fit; NULL: not wanted) and the
// triggering process at `pid` (NULL: not wanted), or `NERVE_EMPTY`.
//
// # Safety
// `estop` is an e-stop handle; `reason` holds `cap` bytes or is NULL; `pid` is NULL or valid.
int32_t nerve_estop_wait(struct nerve_estop *estop,
                         int64_t timeout_ns,
                         char *reason,
                         size_t cap,
                         uint32_t *pid);

// Closes an e-stop listener.
//
// # Safety
// `estop` is NULL or an e-stop handle.
int32_t nerve_estop_close(struct nerve_estop *estop);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* NERVE_H */
