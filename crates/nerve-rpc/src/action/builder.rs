//! Describing an action before serving or opening it: its settings and [`ActionBuilder`],
//! typed by the side it builds.

use std::marker::PhantomData;

/// Settings of an action.
#[derive(Clone, Debug)]
pub(super) struct ActionConfig {
    /// The action's name, prefix of its services and events topic.
    pub(super) name: String,
    /// Domain of all four.
    pub(super) domain: u32,
    /// Depth of the events topic.
    pub(super) events_depth: u32,
}

/// Builds an action server or client.
#[must_use = "a builder does nothing until .serve() or .open()"]
pub struct ActionBuilder<G, F, R, Side> {
    pub(super) config: ActionConfig,
    _t: PhantomData<fn(G, F, R, Side)>,
}

impl<G, F, R, Side> ActionBuilder<G, F, R, Side> {
    /// Action `name` in the default domain, events depth 256.
    pub(super) fn new(name: &str) -> Self {
        ActionBuilder {
            config: ActionConfig {
                name: nerve_transport::name::resolve(name),
                domain: nerve_transport::default_domain(),
                events_depth: 256,
            },
            _t: PhantomData,
        }
    }

    /// Domain (default `$NERVE_DOMAIN` or 0).
    pub fn domain(mut self, domain: u32) -> Self {
        self.config.domain = domain;
        self
    }
    /// Depth of the events topic (default 256): how far a client may fall behind on feedback.
    pub fn events_depth(mut self, depth: u32) -> Self {
        self.config.events_depth = depth;
        self
    }
}

/// Marker for the server side of [`ActionBuilder`].
pub enum ServerSide {}
/// Marker for the client side of [`ActionBuilder`].
pub enum ClientSide {}
