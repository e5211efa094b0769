// What a C++ node uses beside its topics and services: its parameters (tuned live by
// `nerve param set` or any client), other nodes' parameters, the cross-process e-stop, and the
// domain's registry watch. Header-only over nerve.h, as nerve.hpp.
//
//   nerve::Parameters params("driver");
//   params.declare("max_speed", "1.5", 0.0, 3.0, "m/s");
//   double v = params.get_f64("max_speed");          // every cycle: a lock and a lookup
//   nerve::EStopListener estop;                      // at start-up
//   if (auto why = estop.wait_for(0ms)) stop_motors(*why);
//   nerve::trigger_estop("bumper pressed");
#ifndef NERVE_NODE_HPP
#define NERVE_NODE_HPP

#include <optional>
#include <string>

#include "../nerve.hpp"

namespace nerve {

namespace detail {
/// A text value fetched into a growing buffer: `get(buf, cap, &len)` returns a status.
template <class Get>
std::string text(Get get) {
    std::string out(64, '\0');
    std::size_t len = 0;
    int rc = get(out.data(), out.size(), &len);
    if (rc == NERVE_E_BUFFER_TOO_SMALL) {
        out.assign(len + 1, '\0');
        rc = get(out.data(), out.size(), &len);
    }
    check(rc);
    out.resize(len);
    return out;
}
}  // namespace detail

/// This node's parameters, served to other processes while the object lives. Values are
/// given as YAML text (`"0.5"` a float, `"3"` an int, `"true"`, `"fast"`, `"[1, 2]"`).
class Parameters {
public:
    explicit Parameters(const std::string &node, uint32_t domain = NERVE_DOMAIN_DEFAULT) {
        detail::check(nerve_params_open(node.c_str(), domain, h_.out()));
    }
    /// Declares `name` with its default; an int or float is kept within [min, max] when
    /// min <= max.
    void declare(const std::string &name, const std::string &default_value, double min = 1,
                 double max = 0, const std::string &description = "") {
        detail::check(nerve_param_declare(h_.get(), name.c_str(), default_value.c_str(), min, max,
                                          description.c_str()));
    }
    double get_f64(const std::string &name) const {
        double v = 0;
        detail::check(nerve_param_get_f64(h_.get(), name.c_str(), &v));
        return v;
    }
    int64_t get_i64(const std::string &name) const {
        int64_t v = 0;
        detail::check(nerve_param_get_i64(h_.get(), name.c_str(), &v));
        return v;
    }
    bool get_bool(const std::string &name) const {
        bool v = false;
        detail::check(nerve_param_get_bool(h_.get(), name.c_str(), &v));
        return v;
    }
    /// Any parameter as text (a string as itself).
    std::string get_text(const std::string &name) const {
        return detail::text([&](char *buf, std::size_t cap, std::size_t *len) {
            return nerve_param_get_text(h_.get(), name.c_str(), buf, cap, len);
        });
    }
    /// Sets `name` (checked against its type and range: NERVE_E_PARAM_REJECTED).
    void set(const std::string &name, const std::string &value) {
        detail::check(nerve_param_set(h_.get(), name.c_str(), value.c_str()));
    }

private:
    detail::Owned<nerve_params, nerve_params_close> h_;
};

/// Another node's parameters, through its parameter service.
class ParamClient {
public:
    explicit ParamClient(const std::string &node, uint32_t domain = NERVE_DOMAIN_DEFAULT) {
        detail::check(nerve_param_client_open(node.c_str(), domain, h_.out()));
    }
    std::string get(const std::string &name, std::chrono::nanoseconds timeout) const {
        return detail::text([&](char *buf, std::size_t cap, std::size_t *len) {
            return nerve_param_client_get(h_.get(), name.c_str(), detail::ns(timeout), buf, cap, len);
        });
    }
    void set(const std::string &name, const std::string &value, std::chrono::nanoseconds timeout) {
        detail::check(nerve_param_client_set(h_.get(), name.c_str(), value.c_str(), detail::ns(timeout)));
    }

private:
    detail::Owned<nerve_param_client, nerve_param_client_close> h_;
};

/// Triggers the e-stop of every scheduler and listener in the domain.
inline void trigger_estop(const std::string &reason, uint32_t domain = NERVE_DOMAIN_DEFAULT) {
    detail::check(nerve_estop_trigger(domain, reason.c_str()));
}

/// Listens for e-stops from now on: `wait_for` gives the next one's reason.
class EStopListener {
public:
    explicit EStopListener(uint32_t domain = NERVE_DOMAIN_DEFAULT) {
        detail::check(nerve_estop_open(domain, h_.out()));
    }
    std::optional<std::string> wait_for(std::chrono::nanoseconds timeout) {
        char reason[64];
        if (detail::check(nerve_estop_wait(h_.get(), detail::ns(timeout), reason, sizeof reason,
                                           nullptr)) == NERVE_EMPTY) {
            return std::nullopt;
        }
        return std::string(reason);
    }

private:
    detail::Owned<nerve_estop, nerve_estop_close> h_;
};

/// A watch on the domain's registry: topics and endpoints appearing and going, processes
/// dying.
class Watch {
public:
    explicit Watch(uint32_t domain = NERVE_DOMAIN_DEFAULT) {
        detail::check(nerve_watch_open(domain, h_.out()));
    }
    std::optional<nerve_event> next_for(std::chrono::nanoseconds timeout) {
        nerve_event e{};
        if (detail::check(nerve_watch_next(h_.get(), detail::ns(timeout), &e)) == NERVE_EMPTY) {
            return std::nullopt;
        }
        return e;
    }

private:
    detail::Owned<nerve_watch, nerve_watch_close> h_;
};

}  // namespace nerve

#endif  // NERVE_NODE_HPP
