// nerve for C++17: a header-only wrapper over nerve's C ABI (nerve.h, libnerve_c).
//
//   NERVE_FIXED(Twist, "demo/Twist", 0x...);            // a plain struct on the wire
//   nerve::Topic<Twist> topic("robot/cmd_vel", nerve::Options().reliable());
//   auto pub = topic.publisher();  pub.send(Twist{...});
//   auto sub = topic.subscriber(); if (auto m = sub.recv_for(10ms)) use(*m);
//
//   NERVE_CHUNKED(FrameHeader, uint8_t, "demo/Frame", 0x...);   // header + elements, zero copy
//   nerve::Topic<nerve::Chunked<FrameHeader, uint8_t>> frames("camera/frames", opts);
//   auto loan = frames.publisher().loan(w * h);  loan.header().seq = 1;  fill(loan.data());
//   loan.send();
//   if (auto s = frames.subscriber().recv_sample_for(1s)) read(s->header(), s->data());
//
//   nerve::Server plan("arm/plan", [](std::string_view req) { return std::string(req); });
//   std::string resp = nerve::Client("arm/plan").call("3", 1s);
//
// Errors throw nerve::Error (its code and nerve_last_error()'s text). Every throwing call has a
// noexcept twin taking a nerve::Status& last (as std::filesystem does with std::error_code).
// Handles are RAII and move-only. Conventions: docs/design/c-api.md.
#ifndef NERVE_HPP
#define NERVE_HPP

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "nerve.h"

namespace nerve {

/// A failed call: its status code (`NERVE_E_*`) and nerve's text for it.
class Error : public std::runtime_error {
public:
    Error(int code, const char *what) : std::runtime_error(what), code_(code) {}
    int code() const noexcept { return code_; }

private:
    int code_;
};

/// The outcome of a noexcept call: `ok()`, or the code and text of what failed.
struct Status {
    int code = NERVE_OK;
    std::string message;
    bool ok() const noexcept { return code >= 0; }
    explicit operator bool() const noexcept { return ok(); }
};

namespace detail {
inline int check(int rc) {
    if (rc < 0) {
        throw Error(rc, nerve_last_error());
    }
    return rc;
}
inline int note(int rc, Status &st) noexcept {
    st.code = rc;
    if (rc < 0) {
        try {
            st.message = nerve_last_error();
        } catch (...) {
            st.message.clear();
        }
    } else {
        st.message.clear();
    }
    return rc;
}
inline int64_t ns(std::chrono::nanoseconds d) noexcept { return d.count() < 0 ? 0 : d.count(); }

/// A C handle owned by one object, closed with `Close` when the owner goes; move-only.
template <class C, int (*Close)(C *)>
class Owned {
public:
    Owned() noexcept = default;
    explicit Owned(C *h) noexcept : h_(h) {}
    Owned(Owned &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    Owned &operator=(Owned &&o) noexcept {
        if (this != &o) {
            reset();
            h_ = std::exchange(o.h_, nullptr);
        }
        return *this;
    }
    Owned(const Owned &) = delete;
    Owned &operator=(const Owned &) = delete;
    ~Owned() { reset(); }
    C *get() const noexcept { return h_; }
    /// Where a C call stores a new handle (the old one, if any, is closed first).
    C **out() noexcept {
        reset();
        return &h_;
    }

private:
    void reset() noexcept {
        if (h_ != nullptr) {
            Close(h_);
            h_ = nullptr;
        }
    }
    C *h_ = nullptr;
};
}  // namespace detail

/// A view of contiguous elements (the part of C++20's std::span this needs).
template <class T>
class Span {
public:
    constexpr Span() noexcept = default;
    constexpr Span(T *data, std::size_t size) noexcept : data_(data), size_(size) {}
    constexpr T *data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
    constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }
    constexpr T *begin() const noexcept { return data_; }
    constexpr T *end() const noexcept { return data_ + size_; }

private:
    T *data_ = nullptr;
    std::size_t size_ = 0;
};

/// A chunked message type: a header and a run of elements in a shared chunk.
template <class Header, class Elem>
struct Chunked {
    using header_type = Header;
    using elem_type = Elem;
};

/// What a C++ type is on the wire: `static int32_t type(nerve_type *out) noexcept`, given by
/// NERVE_MESSAGE / NERVE_CHUNKED_MESSAGE, by the generated nerve/msgs.hpp for the standard
/// types, or by NERVE_FIXED / NERVE_CHUNKED (a layout hash alone).
template <class T>
struct TypeOf;

/// How a topic is opened (defaults: the default domain and depth, best effort).
class Options {
public:
    Options() noexcept : o_(nerve_topic_options_default()) {}
    Options &domain(uint32_t d) noexcept { o_.domain = d; return *this; }
    Options &depth(uint32_t n) noexcept { o_.depth = n; return *this; }
    Options &best_effort() noexcept { o_.reliability = NERVE_BEST_EFFORT; return *this; }
    Options &reliable() noexcept { o_.reliability = NERVE_RELIABLE; return *this; }
    Options &latest_only() noexcept { o_.reliability = NERVE_LATEST_ONLY; return *this; }
    Options &max_endpoints(uint32_t n) noexcept { o_.max_endpoints = n; return *this; }
    Options &max_message_bytes(uint64_t n) noexcept { o_.max_message_bytes = n; return *this; }
    const nerve_topic_options &c() const noexcept { return o_; }

private:
    nerve_topic_options o_;
};

/// A message type's header and elements (a fixed type: itself, no elements).
template <class T>
struct Parts {
    using header_type = T;
    using elem_type = uint8_t;
};
template <class H, class E>
struct Parts<Chunked<H, E>> {
    using header_type = H;
    using elem_type = E;
};

template <class T>
struct is_chunked : std::false_type {};
template <class H, class E>
struct is_chunked<Chunked<H, E>> : std::true_type {};

template <class T>
class Publisher;
template <class T>
class Subscriber;
template <class T>
class Subscription;

/// A chunk loaned for one message: fill `header()` and `data()` in place, then `send()`.
/// Dropped unsent, the chunk goes back.
template <class H, class E>
class Loan {
public:
    explicit Loan(nerve_loan l) noexcept : l_(l) {}
    Loan(Loan &&o) noexcept : l_(std::exchange(o.l_, nerve_loan{})) {}
    Loan &operator=(Loan &&o) noexcept {
        if (this != &o) {
            discard();
            l_ = std::exchange(o.l_, nerve_loan{});
        }
        return *this;
    }
    Loan(const Loan &) = delete;
    Loan &operator=(const Loan &) = delete;
    ~Loan() { discard(); }

    H &header() noexcept { return *reinterpret_cast<H *>(l_.header); }
    Span<E> data() noexcept { return Span<E>(reinterpret_cast<E *>(l_.data), l_.data_len / sizeof(E)); }
    /// Publishes the message (O(1)).
    void send() { detail::check(nerve_loan_send(&l_)); }
    void send(Status &st) noexcept { detail::note(nerve_loan_send(&l_), st); }

private:
    void discard() noexcept {
        if (l_.owner != nullptr) {
            nerve_loan_discard(&l_);
        }
    }
    nerve_loan l_;
};

/// A received chunked message, read in place until it is dropped.
template <class H, class E>
class Sample {
public:
    explicit Sample(nerve_sample s) noexcept : s_(s) {}
    Sample(Sample &&o) noexcept : s_(std::exchange(o.s_, nerve_sample{})) {}
    Sample &operator=(Sample &&o) noexcept {
        if (this != &o) {
            release();
            s_ = std::exchange(o.s_, nerve_sample{});
        }
        return *this;
    }
    Sample(const Sample &) = delete;
    Sample &operator=(const Sample &) = delete;
    ~Sample() { release(); }

    const H &header() const noexcept { return *reinterpret_cast<const H *>(s_.header); }
    Span<const E> data() const noexcept {
        return Span<const E>(reinterpret_cast<const E *>(s_.data), s_.data_len / sizeof(E));
    }

private:
    void release() noexcept {
        if (s_.owner != nullptr) {
            nerve_sample_release(&s_);
        }
    }
    nerve_sample s_;
};

/// An open topic of `T` (a NERVE_FIXED struct or a Chunked<H, E>).
template <class T>
class Topic {
public:
    Topic(const std::string &name, const Options &options = Options()) {
        nerve_type t{};
        detail::check(TypeOf<T>::type(&t));
        detail::check(nerve_topic_open(name.c_str(), &t, &options.c(), h_.out()));
    }
    Topic(const std::string &name, const Options &options, Status &st) noexcept {
        nerve_type t{};
        int32_t code = TypeOf<T>::type(&t);
        if (code == NERVE_OK) {
            code = nerve_topic_open(name.c_str(), &t, &options.c(), h_.out());
        }
        detail::note(code, st);
    }

    Publisher<T> publisher() const {
        nerve_publisher *p = nullptr;
        detail::check(nerve_publisher_open(h_.get(), &p));
        return Publisher<T>(p);
    }
    /// A subscriber starting with up to `history` recent messages.
    Subscriber<T> subscriber(uint64_t history = 0) const {
        nerve_subscriber *s = nullptr;
        detail::check(nerve_subscriber_open(h_.get(), history, &s));
        return Subscriber<T>(s);
    }
    /// Runs `callback` for every message on a thread of its own (see Subscription); keep the
    /// returned Subscription alive as long as it should run.
    template <class F>
    Subscription<T> subscribe(F &&callback, uint64_t history = 0) const {
        return Subscription<T>(subscriber(history), std::forward<F>(callback));
    }
    nerve_topic *handle() const noexcept { return h_.get(); }

private:
    detail::Owned<nerve_topic, nerve_topic_close> h_;
};

/// Publishes `T`: `send` for a fixed struct, `loan` for a chunked message.
template <class T>
class Publisher {
public:
    explicit Publisher(nerve_publisher *h) noexcept : h_(h) {}

    template <class U = T, class = std::enable_if_t<!is_chunked<U>::value>>
    void send(const U &msg) {
        detail::check(nerve_publish(h_.get(), reinterpret_cast<const uint8_t *>(&msg), sizeof(U)));
    }
    template <class U = T, class = std::enable_if_t<!is_chunked<U>::value>>
    void send(const U &msg, Status &st) noexcept {
        detail::note(nerve_publish(h_.get(), reinterpret_cast<const uint8_t *>(&msg), sizeof(U)), st);
    }
    /// A loan of `elems` elements.
    template <class U = T, class = std::enable_if_t<is_chunked<U>::value>>
    Loan<typename U::header_type, typename U::elem_type> loan(std::size_t elems) {
        nerve_loan l{};
        detail::check(nerve_loan_open(h_.get(), elems * sizeof(typename U::elem_type), &l));
        return Loan<typename U::header_type, typename U::elem_type>(l);
    }
    nerve_publisher *handle() const noexcept { return h_.get(); }

private:
    detail::Owned<nerve_publisher, nerve_publisher_close> h_;
};

/// Receives `T`: `try_recv` / `recv_for` / `recv` for a fixed struct (a copy), the
/// `..._sample` ones for a chunked message (in place).
template <class T>
class Subscriber {
public:
    explicit Subscriber(nerve_subscriber *h) noexcept : h_(h) {}

    template <class U = T, class = std::enable_if_t<!is_chunked<U>::value>>
    std::optional<U> try_recv() { return receive(0); }
    template <class U = T, class = std::enable_if_t<!is_chunked<U>::value>>
    std::optional<U> recv_for(std::chrono::nanoseconds timeout) {
        return receive(detail::ns(timeout));
    }
    /// Waits for the next message.
    template <class U = T, class = std::enable_if_t<!is_chunked<U>::value>>
    U recv() {
        return *receive(-1);
    }
    template <class U = T, class = std::enable_if_t<!is_chunked<U>::value>>
    std::optional<U> recv_for(std::chrono::nanoseconds timeout, Status &st) noexcept {
        U msg;
        std::size_t len = 0;
        int rc = detail::note(
            nerve_recv(h_.get(), detail::ns(timeout), reinterpret_cast<uint8_t *>(&msg), sizeof(U), &len), st);
        if (rc != NERVE_OK) {
            return std::nullopt;
        }
        return msg;
    }

    using SampleT = Sample<typename Parts<T>::header_type, typename Parts<T>::elem_type>;
    template <class U = T, class = std::enable_if_t<is_chunked<U>::value>>
    std::optional<SampleT> try_sample() { return sample(0); }
    template <class U = T, class = std::enable_if_t<is_chunked<U>::value>>
    std::optional<SampleT> recv_sample_for(std::chrono::nanoseconds timeout) {
        return sample(detail::ns(timeout));
    }

    nerve_subscriber_stats stats() const {
        nerve_subscriber_stats s{};
        detail::check(nerve_subscriber_get_stats(h_.get(), &s));
        return s;
    }
    nerve_subscriber *handle() const noexcept { return h_.get(); }

private:
    std::optional<T> receive(int64_t timeout_ns) {
        static_assert(std::is_trivially_copyable<T>::value, "a fixed message is a plain struct");
        T msg;
        std::size_t len = 0;
        int rc = detail::check(nerve_recv(h_.get(), timeout_ns, reinterpret_cast<uint8_t *>(&msg), sizeof(T), &len));
        if (rc == NERVE_EMPTY) {
            return std::nullopt;
        }
        return msg;
    }
    std::optional<SampleT> sample(int64_t timeout_ns) {
        nerve_sample s{};
        if (detail::check(nerve_recv_sample(h_.get(), timeout_ns, &s)) == NERVE_EMPTY) {
            return std::nullopt;
        }
        return SampleT(s);
    }
    detail::Owned<nerve_subscriber, nerve_subscriber_close> h_;
};

/// Runs `callback` for every message a subscriber receives, on a thread of its own: no
/// scheduler and no spin call, the thread sleeps until a message wakes it. A fixed message
/// comes as `const T &`, a chunked one as its `Sample` (in place; keep a copy of what must
/// outlive the call). An exception from the callback is counted (`errors()`, its text in
/// `last_error()`) and receiving goes on. Stops when dropped (within 50 ms).
template <class T>
class Subscription {
public:
    using Message = std::conditional_t<is_chunked<T>::value, typename Subscriber<T>::SampleT, T>;
    using Callback = std::function<void(const Message &)>;

    Subscription(Subscriber<T> sub, Callback callback)
        : state_(std::make_unique<State>(std::move(sub), std::move(callback))) {
        State *s = state_.get();
        s->thread = std::thread([s] { s->run(); });
    }
    Subscription(Subscription &&) noexcept = default;
    Subscription &operator=(Subscription &&o) noexcept {
        if (this != &o) {
            stop();
            state_ = std::move(o.state_);
        }
        return *this;
    }
    ~Subscription() { stop(); }

    /// Stops receiving and waits for a callback in progress to return.
    void stop() noexcept {
        if (state_ && state_->thread.joinable()) {
            // Release: pairs with the thread's acquire load; nothing else is published.
            state_->stopping.store(true, std::memory_order_release);
            state_->thread.join();
        }
    }
    /// Messages the callback took.
    uint64_t handled() const noexcept { return state_ ? state_->handled.load(std::memory_order_relaxed) : 0; }
    /// Callbacks that threw, and receive errors.
    uint64_t errors() const noexcept { return state_ ? state_->errors.load(std::memory_order_relaxed) : 0; }
    /// The text of the last exception or receive error ("" if none).
    std::string last_error() const {
        if (!state_) {
            return {};
        }
        std::lock_guard<std::mutex> g(state_->lock);
        return state_->last;
    }

private:
    struct State {
        State(Subscriber<T> s, Callback c) : sub(std::move(s)), callback(std::move(c)) {}
        void run() noexcept {
            using namespace std::chrono_literals;
            // Acquire: pairs with stop()'s release store.
            while (!stopping.load(std::memory_order_acquire)) {
                try {
                    if constexpr (is_chunked<T>::value) {
                        if (auto m = sub.recv_sample_for(50ms)) {
                            callback(*m);
                            // Relaxed: a statistic, read alone.
                            handled.fetch_add(1, std::memory_order_relaxed);
                        }
                    } else if (auto m = sub.recv_for(50ms)) {
                        callback(*m);
                        // Relaxed: a statistic, read alone.
                        handled.fetch_add(1, std::memory_order_relaxed);
                    }
                } catch (const std::exception &e) {
                    note(e.what());
                } catch (...) {
                    note("the callback threw");
                }
            }
        }
        void note(const char *what) noexcept {
            // Relaxed: a statistic, read alone.
            errors.fetch_add(1, std::memory_order_relaxed);
            try {
                std::lock_guard<std::mutex> g(lock);
                last = what;
            } catch (...) {
            }
        }
        Subscriber<T> sub;
        Callback callback;
        std::atomic<bool> stopping{false};
        std::atomic<uint64_t> handled{0};
        std::atomic<uint64_t> errors{0};
        mutable std::mutex lock;
        std::string last;
        std::thread thread;
    };
    std::unique_ptr<State> state_;
};

/// A service client: request bytes in, response bytes out (encode them as the server
/// expects). Failures throw nerve::Error: NERVE_E_NO_SERVER, NERVE_E_TIMEOUT,
/// NERVE_E_HANDLER with the handler's message, ...
class Client {
public:
    explicit Client(const std::string &service, uint32_t domain = NERVE_DOMAIN_DEFAULT,
                    std::size_t max_response = std::size_t(1) << 20)
        : buf_(max_response) {
        detail::check(nerve_client_open(service.c_str(), domain, h_.out()));
    }
    /// Calls with `request`, waiting up to `timeout` for the response.
    std::string call(std::string_view request, std::chrono::nanoseconds timeout) {
        std::size_t len = 0;
        detail::check(nerve_call(h_.get(), reinterpret_cast<const uint8_t *>(request.data()),
                                 request.size(), detail::ns(timeout), buf_.data(), buf_.size(),
                                 &len));
        return std::string(reinterpret_cast<const char *>(buf_.data()), len);
    }
    nerve_client *handle() const noexcept { return h_.get(); }

private:
    std::vector<uint8_t> buf_;
    detail::Owned<nerve_client, nerve_client_close> h_;
};

/// A service server running `handler` on nerve's threads (`workers` at once) until it goes
/// out of scope. The handler returns the response bytes; an exception it throws fails the
/// call, its `what()` reaching the caller.
class Server {
public:
    using Handler = std::function<std::string(std::string_view request)>;

    Server(const std::string &service, Handler handler, uint32_t workers = 1,
           uint32_t domain = NERVE_DOMAIN_DEFAULT)
        : handler_(std::make_unique<Handler>(std::move(handler))) {
        detail::check(nerve_server_open(service.c_str(), domain, workers, &Server::trampoline,
                                        handler_.get(), h_.out()));
    }
    nerve_server *handle() const noexcept { return h_.get(); }

private:
    static int32_t trampoline(void *context, const uint8_t *request, std::size_t len,
                              nerve_reply *reply) noexcept {
        try {
            std::string r = (*static_cast<Handler *>(context))(
                std::string_view(reinterpret_cast<const char *>(request), len));
            return nerve_reply_set(reply, reinterpret_cast<const uint8_t *>(r.data()), r.size());
        } catch (const std::exception &e) {
            return nerve_reply_error(reply, e.what());
        } catch (...) {
            return nerve_reply_error(reply, "the C++ handler threw");
        }
    }
    // Declared before the handle: the server stops (h_ is closed) before the handler goes.
    std::unique_ptr<Handler> handler_;
    detail::Owned<nerve_server, nerve_server_close> h_;
};

}  // namespace nerve

/// Declares plain struct `T` as the fixed message type `NAME` by its layout hash alone (no
/// description: tools see its bytes). Prefer NERVE_MESSAGE. At global scope.
#define NERVE_FIXED(T, NAME, HASH)                                                          \
    template <>                                                                             \
    struct nerve::TypeOf<T> {                                                               \
        static int32_t type(nerve_type *out) noexcept {                                     \
            static_assert(std::is_trivially_copyable<T>::value, #T " must be a plain struct"); \
            *out = nerve_type{NAME, NERVE_KIND_FIXED, sizeof(T), alignof(T), 0, HASH, nullptr, 0}; \
            return NERVE_OK;                                                                \
        }                                                                                   \
    }

/// Declares the chunked message type `NAME` (header `H`, elements `E`) by its layout hash
/// alone. Prefer NERVE_CHUNKED_MESSAGE. At global scope.
#define NERVE_CHUNKED(H, E, NAME, HASH)                                                      \
    template <>                                                                              \
    struct nerve::TypeOf<nerve::Chunked<H, E>> {                                             \
        static int32_t type(nerve_type *out) noexcept {                                      \
            *out = nerve_type{NAME, NERVE_KIND_CHUNKED, sizeof(H), alignof(H), sizeof(E), HASH, \
                              nullptr, 0};                                                   \
            return NERVE_OK;                                                                 \
        }                                                                                    \
    }

/// `T` is the message type `FN` (a `T_nerve_type`-style function) gives. At global scope.
#define NERVE_TYPE(T, FN)                                                                    \
    template <>                                                                              \
    struct nerve::TypeOf<T> {                                                                \
        static int32_t type(nerve_type *out) noexcept {                                      \
            static_assert(std::is_trivially_copyable<T>::value, #T " must be a plain struct"); \
            return FN(out);                                                                  \
        }                                                                                    \
    }

/// `Chunked<H, E>` is the chunked message type `FN` gives. At global scope.
#define NERVE_CHUNKED_TYPE(H, E, FN)                                                         \
    template <>                                                                              \
    struct nerve::TypeOf<nerve::Chunked<H, E>> {                                             \
        static int32_t type(nerve_type *out) noexcept { return FN(out); }                    \
    }

/// Declares struct `T` as fixed message type `NAME` with its fields (NERVE_FIELD...): the same
/// description and fingerprint as the Rust and Python definitions. At global scope.
#define NERVE_MESSAGE(T, NAME, ...)                                                          \
    NERVE_STRUCT(T, NAME, __VA_ARGS__)                                                       \
    NERVE_TYPE(T, T##_nerve_type)

/// Declares chunked message type `NAME`: header `H` with its fields, elements `E` of kind
/// `E_KIND` ("u8", "f32", "PointXYZ", ...). At global scope.
#define NERVE_CHUNKED_MESSAGE(H, E, NAME, E_KIND, ...)                                       \
    NERVE_CHUNKED_STRUCT(H, NAME, E, E_KIND, __VA_ARGS__)                                    \
    NERVE_CHUNKED_TYPE(H, E, H##_nerve_type)

/// The same with elements of a declared struct `E` (NERVE_NESTED_STRUCT). At global scope.
#define NERVE_CHUNKED_MESSAGE_OF(H, E, NAME, ...)                                            \
    NERVE_CHUNKED_STRUCT_OF(H, NAME, E, E##_nerve_type, __VA_ARGS__)                         \
    NERVE_CHUNKED_TYPE(H, E, H##_nerve_type)

#endif  // NERVE_HPP
