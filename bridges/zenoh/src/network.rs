//! The `[network]` table of nerve's configuration file, the one-line setup written down once
//! per host instead of in every shell:
//!
//! ```toml
//! [network]
//! peers = ["tcp/10.0.0.2:7447"]
//! ```
//!
//! The file is `$NERVE_CONFIG` if set (then it must exist), else `./nerve.toml`, else
//! `$XDG_CONFIG_HOME/nerve/nerve.toml` (`~/.config/nerve/nerve.toml`). Flags win over
//! `NERVE_PEERS`, which wins over the file.

use std::path::{Path, PathBuf};

use crate::BridgeError;

/// The variable naming nerve's configuration file.
pub const CONFIG_ENV: &str = "NERVE_CONFIG";

/// The keys `[network]` may hold.
const KEYS: [&str; 1] = ["peers"];

/// The peers of the first configuration file found, with the file; none when no file is there
/// or it has no `[network]` table. A file that cannot be read or parsed, an unknown key in
/// `[network]`, or peers that are not a list of text is an error naming the file.
pub fn peers() -> Result<Option<(PathBuf, Vec<String>)>, BridgeError> {
    let Some(path) = file()? else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path).map_err(|e| bad(&path, e.to_string()))?;
    peers_in(&path, &text).map(|p| p.map(|p| (path, p)))
}

fn file() -> Result<Option<PathBuf>, BridgeError> {
    if let Some(named) = std::env::var_os(CONFIG_ENV) {
        let path = PathBuf::from(named);
        if !path.is_file() {
            return Err(BridgeError::Config {
                what: format!("{CONFIG_ENV}={}", path.display()),
                reason: "no such file; point it at a nerve.toml or unset it".into(),
            });
        }
        return Ok(Some(path));
    }
    let user = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")))
        .map(|d| d.join("nerve/nerve.toml"));
    Ok([Some(PathBuf::from("nerve.toml")), user]
        .into_iter()
        .flatten()
        .find(|p| p.is_file()))
}

fn bad(path: &Path, reason: String) -> BridgeError {
    BridgeError::Config {
        what: path.display().to_string(),
        reason,
    }
}

fn peers_in(path: &Path, text: &str) -> Result<Option<Vec<String>>, BridgeError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        bad(path, format!("not TOML: {}", e.to_string().trim_end()))
    })?;
    let Some(network) = table.get("network") else {
        return Ok(None);
    };
    let network = network
        .as_table()
        .ok_or_else(|| bad(path, "`network` must be a table ([network])".into()))?;
    if let Some(k) = network.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(bad(
            path,
            format!("[network] has no key `{k}` (it knows {})", KEYS.join(", ")),
        ));
    }
    let Some(peers) = network.get("peers") else {
        return Ok(None);
    };
    let list = peers
        .as_array()
        .and_then(|a| a.iter().map(|p| p.as_str().map(str::to_owned)).collect())
        .ok_or_else(|| {
            bad(
                path,
                "[network] peers must be a list of endpoints, peers = [\"tcp/10.0.0.2:7447\"]"
                    .into(),
            )
        })?;
    Ok(Some(list))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Option<Vec<String>>, String> {
        peers_in(Path::new("nerve.toml"), text).map_err(|e| e.to_string())
    }

    #[test]
    fn peers_come_from_the_network_table_and_mistakes_name_the_file() {
        assert_eq!(
            read("[network]\npeers = [\"tcp/10.0.0.2:7447\", \"tcp/10.0.0.3:7447\"]\n"),
            Ok(Some(vec![
                "tcp/10.0.0.2:7447".into(),
                "tcp/10.0.0.3:7447".into()
            ]))
        );
        assert_eq!(read("[other]\nx = 1\n"), Ok(None));
        assert_eq!(read("[network]\n"), Ok(None));
        for (text, says) in [
            ("[network\n", "nerve.toml: not TOML"),
            ("network = 3\n", "`network` must be a table"),
            ("[network]\npeer = []\n", "[network] has no key `peer`"),
            ("[network]\npeers = \"tcp/a:1\"\n", "peers must be a list"),
            ("[network]\npeers = [1]\n", "peers must be a list"),
        ] {
            let e = read(text).unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }
}
