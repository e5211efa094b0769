//! Who shares a domain's files, and where they live.
//!
//! By default one user: `<root>/nerve-<uid>-<domain>`, directories 0700 and files 0600. With
//! `NERVE_SHM_GROUP=<group>` (a name, or a number as every container sees it) every member of
//! that group: `<root>/nerve-g<gid>-<domain>`, directories 2770 and files 0660, all owned by
//! the group, so containers running as different users (root and uid 1000, say) share a
//! domain. `<root>` is `$NERVE_SHM_DIR` or `/dev/shm`. The processes' life files (see
//! [`crate::liveness`]) live beside the domains, in `nerve-<uid>-life` or `nerve-g<gid>-life`.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// The environment variable that turns on the group mode.
pub const GROUP_ENV: &str = "NERVE_SHM_GROUP";

/// The shared-memory root and who shares it, as this process's environment says now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    /// `$NERVE_SHM_DIR` or `/dev/shm`.
    pub root: PathBuf,
    /// The group of the group mode (None: this user only).
    pub group: Option<Group>,
}

/// The group of the group mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// What `NERVE_SHM_GROUP` says.
    pub name: String,
    /// Its number (None: no such group on this system).
    pub gid: Option<u32>,
}

impl Scope {
    /// The scope of this process now (read from the environment each time).
    pub fn current() -> Scope {
        let root = std::env::var_os("NERVE_SHM_DIR")
            .filter(|r| !r.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/dev/shm"));
        let group = std::env::var(GROUP_ENV)
            .ok()
            .filter(|g| !g.is_empty())
            .map(|name| Group {
                gid: gid_of(&name),
                name,
            });
        Scope { root, group }
    }

    /// The prefix of this scope's directory names: `nerve-<uid>` or `nerve-g<gid>`.
    fn prefix(&self) -> String {
        match &self.group {
            None => {
                // SAFETY: getuid has no preconditions.
                let uid = unsafe { libc::getuid() };
                format!("nerve-{uid}")
            }
            Some(Group { gid: Some(gid), .. }) => format!("nerve-g{gid}"),
            // A name nobody knows: a directory name no other scope has; `prepare_dir` refuses it.
            Some(Group { name, gid: None }) => format!("nerve-gunknown-{}", name.replace('/', "%")),
        }
    }

    /// The directory of domain `domain`.
    pub fn domain_dir(&self, domain: u32) -> PathBuf {
        self.root.join(format!("{}-{domain}", self.prefix()))
    }

    /// The directory of the processes' life files.
    pub fn life_dir(&self) -> PathBuf {
        self.root.join(format!("{}-life", self.prefix()))
    }

    /// Mode of the files this scope creates.
    pub fn file_mode(&self) -> u32 {
        if self.group.is_some() {
            0o660
        } else {
            0o600
        }
    }

    /// Creates `dir` (and its parents) if needed, with this scope's mode and group.
    pub fn prepare_dir(&self, dir: &Path) -> io::Result<()> {
        let gid = self.gid()?;
        let mode = if gid.is_some() { 0o2770 } else { 0o700 };
        match std::fs::DirBuilder::new()
            .recursive(true)
            .mode(mode)
            .create(dir)
        {
            Ok(()) => {}
            Err(e) => return Err(self.explain(e, dir)),
        }
        if let Some(gid) = gid {
            // Ours to set up when we made it (the umask may have cleared group bits); a
            // directory another member made is left as it is.
            let meta = std::fs::metadata(dir).map_err(|e| self.explain(e, dir))?;
            // SAFETY: getuid has no preconditions.
            if std::os::unix::fs::MetadataExt::uid(&meta) == unsafe { libc::getuid() } {
                chown_group(dir, gid).map_err(|e| self.explain(e, dir))?;
                std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))
                    .map_err(|e| self.explain(e, dir))?;
            }
        }
        Ok(())
    }

    /// Gives a file this process just created the scope's group and mode (the umask may have
    /// cleared the group bits).
    pub fn adopt(&self, file: &File, path: &Path) -> io::Result<()> {
        let Some(gid) = self.gid()? else {
            return Ok(());
        };
        // SAFETY: fchown and fchmod on an open descriptor; -1 leaves the owner as it is.
        let r = unsafe {
            if libc::fchown(file.as_raw_fd(), u32::MAX, gid) != 0 {
                -1
            } else {
                libc::fchmod(file.as_raw_fd(), 0o660)
            }
        };
        if r != 0 {
            return Err(self.explain(io::Error::last_os_error(), path));
        }
        Ok(())
    }

    /// [`Scope::adopt`] for a file that may be another member's (opened, not created): only
    /// a file this user owns is changed, one another member made is left as it is.
    pub fn adopt_if_ours(&self, file: &File, path: &Path) -> io::Result<()> {
        if self.group.is_none() {
            return Ok(());
        }
        let meta = file.metadata().map_err(|e| self.explain(e, path))?;
        // SAFETY: getuid has no preconditions.
        if std::os::unix::fs::MetadataExt::uid(&meta) == unsafe { libc::getuid() } {
            self.adopt(file, path)?;
        }
        Ok(())
    }

    /// The group's number; an error naming the group if the system does not know it.
    fn gid(&self) -> io::Result<Option<u32>> {
        match &self.group {
            None => Ok(None),
            Some(Group { gid: Some(gid), .. }) => Ok(Some(*gid)),
            Some(Group { name, gid: None }) => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{GROUP_ENV}={name}: no such group on this system; use the group's number \
                     (the same gid in every container that shares the domain)"
                ),
            )),
        }
    }

    /// A permission error on `path` says what the scope needs; others pass unchanged.
    pub fn explain(&self, e: io::Error, path: &Path) -> io::Error {
        if e.kind() != io::ErrorKind::PermissionDenied {
            return e;
        }
        let how = match &self.group {
            Some(g) => format!(
                "{path:?} belongs to group '{}' ({GROUP_ENV}): run this process as a member of \
                 that group (docker: --group-add <gid>)",
                g.name
            ),
            None => format!(
                "{path:?} is not this user's: nerve shares a domain between processes of one \
                 user, or of one group with {GROUP_ENV}=<group> set in every container"
            ),
        };
        io::Error::new(e.kind(), format!("{e}: {how}"))
    }
}

fn chown_group(path: &Path, gid: u32) -> io::Result<()> {
    let c = CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))?;
    // SAFETY: `c` is a NUL-terminated path; -1 leaves the owner as it is.
    if unsafe { libc::chown(c.as_ptr(), u32::MAX, gid) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The gid of a group given by number or name (None: unknown). A name is looked up once per
/// process (the group database can be slow to read, and domain paths are asked for often).
fn gid_of(group: &str) -> Option<u32> {
    if let Ok(gid) = group.parse() {
        return Some(gid);
    }
    static KNOWN: Mutex<Option<(String, Option<u32>)>> = Mutex::new(None);
    let mut known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
    match &*known {
        Some((name, gid)) if name == group => *gid,
        _ => {
            let gid = lookup_gid(group);
            *known = Some((group.to_owned(), gid));
            gid
        }
    }
}

fn lookup_gid(group: &str) -> Option<u32> {
    let name = CString::new(group).ok()?;
    // SAFETY: zeroed `group` is a valid out-parameter; getgrnam_r writes it and points its
    // strings into `buf`, which outlives the call; `result` is set to it or to null.
    unsafe {
        let mut grp: libc::group = std::mem::zeroed();
        let mut buf = vec![0 as libc::c_char; 16 * 1024];
        let mut result: *mut libc::group = std::ptr::null_mut();
        let r = libc::getgrnam_r(
            name.as_ptr(),
            &mut grp,
            buf.as_mut_ptr(),
            buf.len(),
            &mut result,
        );
        (r == 0 && !result.is_null()).then_some(grp.gr_gid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "reads the group database, which miri isolates")]
    fn groups_resolve_by_number_and_name_and_unknown_names_say_so() {
        assert_eq!(gid_of("4242"), Some(4242));
        assert_eq!(gid_of("root"), Some(0));
        assert_eq!(gid_of("no-such-group-nerve"), None);
        let s = Scope {
            root: PathBuf::from("/r"),
            group: Some(Group {
                name: "no-such-group-nerve".into(),
                gid: None,
            }),
        };
        let e = s.prepare_dir(Path::new("/r/x")).unwrap_err();
        assert!(e.to_string().contains("no such group"), "{e}");
        let g = Scope {
            root: PathBuf::from("/r"),
            group: Some(Group {
                name: "robot".into(),
                gid: Some(4242),
            }),
        };
        assert_eq!(g.domain_dir(3), PathBuf::from("/r/nerve-g4242-3"));
        assert_eq!(g.life_dir(), PathBuf::from("/r/nerve-g4242-life"));
        assert_eq!(g.file_mode(), 0o660);
    }
}
