//! Errors of services, actions and parameters. Each message names the service or node, says
//! what happened and what to do.

use std::time::Duration;

use crate::param::value::ParamType;

/// A service call failed.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No live server for the service when the call was made.
    #[error("service '{service}' (domain {domain}) has no live server. Start the server process (or check its name and NERVE_DOMAIN), or wait with wait_for_server()")]
    NoServer {
        /// The service.
        service: String,
        /// Its domain.
        domain: u32,
    },
    /// No response within the timeout while the server was alive.
    #[error("service '{service}': no response within {timeout:?}; the server is alive but slow or overloaded. Raise the timeout or add server workers")]
    Timeout {
        /// The service.
        service: String,
        /// The call's timeout.
        timeout: Duration,
    },
    /// The server process died (or stopped serving) while the call was in flight.
    #[error("service '{service}': the server (pid {pid}) died or stopped during the call; the request may or may not have been handled. Restart the server and retry if the request is idempotent")]
    ServerDied {
        /// The service.
        service: String,
        /// The server's pid.
        pid: u32,
    },
    /// The handler returned an error (or panicked).
    #[error("service '{service}': the handler failed: {message}")]
    Handler {
        /// The service.
        service: String,
        /// The handler's message.
        message: String,
    },
    /// The server could not decode the request.
    #[error("service '{service}': the server cannot decode the request ({reason}). Client and server must use the same request type")]
    BadRequest {
        /// The service.
        service: String,
        /// The decoder's message.
        reason: String,
    },
    /// The request could not be encoded.
    #[error("service '{service}': cannot encode the request: {reason}")]
    Encode {
        /// The service.
        service: String,
        /// The encoder's message.
        reason: String,
    },
    /// The response could not be decoded into the response type.
    #[error("service '{service}': cannot decode the response ({reason}). Client and server must use the same response type")]
    Decode {
        /// The service.
        service: String,
        /// The decoder's message.
        reason: String,
    },
    /// The request could not be sent (too large, pool exhausted).
    #[error("service '{service}': cannot send the request: {source}")]
    Send {
        /// The service.
        service: String,
        /// The topic's error.
        source: nerve_transport::SendError<()>,
    },
    /// A topic of the service could not be opened.
    #[error("service '{service}': {source}")]
    Open {
        /// The service.
        service: String,
        /// The topic's error.
        source: nerve_transport::OpenError,
    },
}

/// Starting a server failed.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Another live server serves the service.
    #[error("service '{service}' is already served by pid {pid}. Stop that server first, or use another service name")]
    AlreadyServed {
        /// The service.
        service: String,
        /// The serving process.
        pid: u32,
    },
    /// A topic of the service could not be opened.
    #[error("service '{service}': {source}")]
    Open {
        /// The service.
        service: String,
        /// The topic's error.
        source: nerve_transport::OpenError,
    },
    /// More worker threads asked for than a server may have.
    #[error("service '{service}': {asked} workers asked for, at most {max} (a server's workers are threads; more than the machine's cores only queue)")]
    TooManyWorkers {
        /// The service.
        service: String,
        /// What was asked for.
        asked: usize,
        /// The limit (`MAX_WORKERS`).
        max: usize,
    },
    /// A server thread could not be started.
    #[error("service '{service}': cannot start a server thread: {source}")]
    Thread {
        /// The service.
        service: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// An action request failed.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    /// The server refused the goal.
    #[error("action '{action}': the server rejected the goal: {reason}")]
    Rejected {
        /// The action.
        action: String,
        /// The server's reason.
        reason: String,
    },
    /// The goal did not end within the timeout.
    #[error("action '{action}': goal {goal_id:#x} did not finish within {timeout:?}. Wait longer or cancel it")]
    Timeout {
        /// The action.
        action: String,
        /// The goal.
        goal_id: u64,
        /// The timeout.
        timeout: Duration,
    },
    /// The server does not know the goal (it restarted, or forgot a goal finished long ago).
    #[error("action '{action}': the server does not know goal {goal_id:#x} (it restarted, or the goal finished more than a minute ago)")]
    UnknownGoal {
        /// The action.
        action: String,
        /// The goal.
        goal_id: u64,
    },
    /// A service call underneath failed (no server, server died, timeout…).
    #[error(transparent)]
    Call(#[from] CallError),
    /// A thread could not be started.
    #[error("action '{action}': cannot start a thread: {source}")]
    Thread {
        /// The action.
        action: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// A parameter operation failed.
#[derive(Debug, thiserror::Error)]
pub enum ParamError {
    /// The value is outside the declared range.
    #[error("node '{node}': parameter '{name}' = {value} is out of range {range}. Use a value within the range")]
    OutOfRange {
        /// The node.
        node: String,
        /// The parameter.
        name: String,
        /// The refused value.
        value: String,
        /// The allowed range.
        range: String,
    },
    /// The value has another type than the declared one.
    #[error("node '{node}': parameter '{name}' is declared as {expected}, but {value} is {found}")]
    WrongType {
        /// The node.
        node: String,
        /// The parameter.
        name: String,
        /// The declared type.
        expected: ParamType,
        /// The value's type.
        found: ParamType,
        /// The refused value.
        value: String,
    },
    /// A change callback refused the value.
    #[error("node '{node}': parameter '{name}' = {value} was rejected: {reason}")]
    Rejected {
        /// The node.
        node: String,
        /// The parameter.
        name: String,
        /// The refused value.
        value: String,
        /// The callback's reason.
        reason: String,
    },
    /// No parameter of that name is declared.
    #[error(
        "node '{node}' has no parameter '{name}'. Declare it first (or check the name with list)"
    )]
    Undeclared {
        /// The node.
        node: String,
        /// The parameter.
        name: String,
    },
    /// Declared twice.
    #[error("node '{node}': parameter '{name}' is already declared")]
    AlreadyDeclared {
        /// The node.
        node: String,
        /// The parameter.
        name: String,
    },
    /// Read-only parameters are set only from a loaded file, before declaration.
    #[error(
        "node '{node}': parameter '{name}' is read-only; set it in the parameter file instead"
    )]
    ReadOnly {
        /// The node.
        node: String,
        /// The parameter.
        name: String,
    },
    /// The YAML document is not valid or not of the expected shape.
    #[error("node '{node}': bad parameter YAML: {reason}. Expected `node: {{ros__parameters: {{name: value}}}}` or `node: {{name: value}}`")]
    Yaml {
        /// The node.
        node: String,
        /// What is wrong.
        reason: String,
    },
    /// The remote node refused the change (its message names node, parameter and value).
    #[error("{message}")]
    Remote {
        /// The node's error message.
        message: String,
    },
    /// The parameter service call failed (no such node running, timeout…).
    #[error(transparent)]
    Call(CallError),
}

impl From<CallError> for ParamError {
    fn from(e: CallError) -> Self {
        ParamError::Call(e)
    }
}
