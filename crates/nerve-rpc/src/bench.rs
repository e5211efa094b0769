//! Service round-trip benchmark rows for `nerve-bench rpc`.
