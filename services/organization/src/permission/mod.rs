//! Who may do what in an organization (protocol reference §11.4, the reading A): the
//! built-in `owner`, `admin` and `member` roles, custom roles from configuration, and ONE check
//! that every route and `has-permission` use. A member with several roles (comma-separated)
//! may do what any one of them allows.

use std::collections::BTreeMap;

use gatehouse_kit::access::{Request, Role};

/// The role an organization's creator gets, and the one the owner rules are about.
pub const OWNER: &str = "owner";
pub const ADMIN: &str = "admin";
/// The role of a member added without one.
pub const MEMBER: &str = "member";

const OWNER_STATEMENTS: &[(&str, &[&str])] = &[
    ("organization", &["update", "delete"]),
    ("member", &["create", "update", "delete"]),
    ("invitation", &["create", "cancel"]),
    ("team", &["create", "update", "delete"]),
];
const ADMIN_STATEMENTS: &[(&str, &[&str])] = &[
    ("organization", &["update"]),
    ("member", &["create", "update", "delete"]),
    ("invitation", &["create", "cancel"]),
    ("team", &["create", "update", "delete"]),
];

/// The roles a deployment knows.
#[derive(Clone, Debug)]
pub struct Roles {
    roles: BTreeMap<String, Role>,
}

impl Roles {
    /// The built-in roles plus `custom` ones (which may redefine them).
    pub fn new(custom: BTreeMap<String, Role>) -> Self {
        let mut roles = BTreeMap::from([
            (
                OWNER.to_string(),
                Role::new(OWNER_STATEMENTS.iter().copied()),
            ),
            (
                ADMIN.to_string(),
                Role::new(ADMIN_STATEMENTS.iter().copied()),
            ),
            (MEMBER.to_string(), Role::default()),
        ]);
        roles.extend(custom);
        Self { roles }
    }

    /// Whether a member holding `role` (comma-separated) may do everything `wanted` asks.
    pub fn allows(&self, role: &str, wanted: &Request) -> bool {
        split(role).any(|name| self.roles.get(name).is_some_and(|r| r.allows(wanted)))
    }

    /// Whether every role named is one this deployment knows; the unknown ones otherwise.
    pub fn unknown<'a>(&self, names: &'a [String]) -> Vec<&'a str> {
        names
            .iter()
            .map(|name| name.trim())
            .filter(|name| !self.roles.contains_key(*name))
            .collect()
    }
}

/// Whether `role` (comma-separated) includes the owner role.
pub fn is_owner(role: &str) -> bool {
    split(role).any(|name| name == OWNER)
}

/// The role names in a comma-separated role string.
pub fn split(role: &str) -> impl Iterator<Item = &str> {
    role.split(',').map(str::trim).filter(|r| !r.is_empty())
}

/// `resource: [action]`, the shape of every route's own check.
pub fn wants(resource: &str, action: &str) -> Request {
    Request::all([(resource, &[action][..])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn owners_may_delete_admins_may_not_members_may_nothing() {
        let roles = Roles::new(BTreeMap::new());
        let delete = wants("organization", "delete");
        let update = wants("organization", "update");
        assert!(roles.allows("owner", &delete));
        assert!(!roles.allows("admin", &delete));
        assert!(roles.allows("admin", &update));
        assert!(
            roles.allows("member,admin", &update),
            "any one role may allow"
        );
        for (resource, action) in [
            ("member", "create"),
            ("invitation", "cancel"),
            ("team", "delete"),
        ] {
            assert!(roles.allows("admin", &wants(resource, action)));
            assert!(!roles.allows("member", &wants(resource, action)));
        }
        assert!(!roles.allows("", &update));
        assert!(!roles.allows("stranger", &update));
        assert!(!roles.allows("owner", &wants("organization", "transfer")));
    }

    #[test]
    fn custom_roles_come_from_configuration() {
        let billing = Role::from_json(&json!({"invitation": ["create"]})).unwrap();
        let roles = Roles::new(BTreeMap::from([("billing".to_string(), billing)]));
        assert!(roles.allows("billing", &wants("invitation", "create")));
        assert!(!roles.allows("billing", &wants("invitation", "cancel")));
        let names = [
            "billing".to_string(),
            " admin".to_string(),
            "root".to_string(),
        ];
        assert_eq!(roles.unknown(&names), vec!["root"]);
        assert!(is_owner("admin, owner"));
        assert!(!is_owner("admin,owners"));
    }
}
