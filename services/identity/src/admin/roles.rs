//! Who may do what (better-auth's admin access control, §10.3): the built-in `admin` and `user`
//! roles, custom roles from configuration, and the configured admin user ids that pass every
//! check. A user with several roles (comma-separated) may do what any one of them allows.

use std::collections::BTreeMap;

use gatehouse_kit::access::{Request, Role};
use gatehouse_kit::errors::{ErrorCode, admin as codes};

use crate::user::{DEFAULT_ROLE, User};

/// Every action of the `user` resource but `impersonate-admins`, and every `session` action.
const ADMIN_USER_ACTIONS: &[&str] = &[
    "create",
    "list",
    "set-role",
    "ban",
    "impersonate",
    "delete",
    "set-password",
    "set-email",
    "reset-two-factor",
    "get",
    "update",
];
const ADMIN_SESSION_ACTIONS: &[&str] = &["list", "revoke", "delete"];

/// The roles a deployment knows and who counts as an admin.
#[derive(Clone, Debug)]
pub struct Roles {
    roles: BTreeMap<String, Role>,
    /// `ADMIN_USER_IDS`: these users pass every check, whatever their role.
    admin_user_ids: Vec<String>,
    /// Roles whose holders count as admins (`ADMIN_ROLES`).
    admin_roles: Vec<String>,
}

impl Roles {
    /// The built-in `admin` and `user` roles plus `custom` ones (which may redefine them).
    pub fn new(
        custom: BTreeMap<String, Role>,
        admin_user_ids: Vec<String>,
        admin_roles: Vec<String>,
    ) -> Self {
        let mut roles = BTreeMap::from([
            (
                "admin".to_string(),
                Role::new([
                    ("user", ADMIN_USER_ACTIONS),
                    ("session", ADMIN_SESSION_ACTIONS),
                ]),
            ),
            (DEFAULT_ROLE.to_string(), Role::default()),
        ]);
        roles.extend(custom);
        Self {
            roles,
            admin_user_ids,
            admin_roles,
        }
    }

    /// Whether a user with this id and role string may do everything `wanted` asks.
    pub fn allows(&self, user_id: &str, role: &str, wanted: &Request) -> bool {
        self.admin_user_ids.iter().any(|id| id == user_id)
            || Self::split(role).any(|name| self.roles.get(name).is_some_and(|r| r.allows(wanted)))
    }

    pub fn user_allows(&self, user: &User, wanted: &Request) -> bool {
        self.allows(&user.id, &user.role, wanted)
    }

    /// An admin, whom other admins may not act on: an admin role, or a configured admin id.
    pub fn is_admin(&self, user: &User) -> bool {
        self.is_super_admin(user)
            || Self::split(&user.role).any(|name| self.admin_roles.iter().any(|r| r == name))
    }

    /// A super-admin (`ADMIN_USER_IDS`): the one kind of user who may act on another admin.
    pub fn is_super_admin(&self, user: &User) -> bool {
        self.admin_user_ids.contains(&user.id)
    }

    /// Whether `actor` may change, ban, remove or sign out `target` (their permission for the
    /// action apart): anyone on themselves or on a user who is no admin, only a super-admin on
    /// another admin. Setting an admin's password or email would hand over their account, and
    /// banning, removing or demoting one would let admins turn on each other.
    pub fn may_act_on(&self, actor: &User, target: &User) -> bool {
        actor.id == target.id || !self.is_admin(target) || self.is_super_admin(actor)
    }

    /// Whether every one of `names` is a role this deployment knows.
    pub fn knows(&self, names: &[String]) -> bool {
        names
            .iter()
            .all(|name| self.roles.contains_key(name.trim()))
    }

    /// `names` as a user's role is stored (comma-separated), if there is at least one and this
    /// deployment knows every one.
    pub fn stored(&self, names: &[String]) -> Result<String, ErrorCode> {
        if names.is_empty() || !self.knows(names) {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE);
        }
        Ok(names.iter().map(|r| r.trim()).collect::<Vec<_>>().join(","))
    }

    /// The role names in a comma-separated role string (the default role when empty).
    fn split(role: &str) -> impl Iterator<Item = &str> {
        let role = if role.trim().is_empty() {
            DEFAULT_ROLE
        } else {
            role
        };
        role.split(',').map(str::trim).filter(|r| !r.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wanted(value: serde_json::Value) -> Request {
        Request::from_json(&value).unwrap()
    }

    #[test]
    fn admins_may_do_everything_but_impersonate_admins_and_users_nothing() {
        let roles = Roles::new(BTreeMap::new(), vec![], vec!["admin".into()]);
        let all = wanted(
            json!({"user": ["create", "list", "set-role", "ban", "impersonate",
            "delete", "set-password", "reset-two-factor", "get", "update"], "session": ["list", "revoke", "delete"]}),
        );
        assert!(roles.allows("a", "admin", &all));
        assert!(
            roles.allows("a", "user,admin", &all),
            "any one role may allow"
        );
        assert!(!roles.allows(
            "a",
            "admin",
            &wanted(json!({"user": ["impersonate-admins"]}))
        ));
        assert!(!roles.allows("u", "user", &wanted(json!({"user": ["list"]}))));
        assert!(!roles.allows("u", "", &wanted(json!({"user": ["list"]}))));
        assert!(!roles.allows("u", "unknown", &wanted(json!({"user": ["list"]}))));
    }

    #[test]
    fn configured_admin_ids_and_custom_roles() {
        let support =
            Role::from_json(&json!({"user": ["list", "get"], "session": ["list"]})).unwrap();
        let roles = Roles::new(
            BTreeMap::from([("support".to_string(), support)]),
            vec!["root-id".into()],
            vec!["admin".into()],
        );
        assert!(roles.allows("root-id", "user", &wanted(json!({"user": ["delete"]}))));
        assert!(roles.allows("s", "support", &wanted(json!({"user": ["get"]}))));
        assert!(!roles.allows("s", "support", &wanted(json!({"user": ["ban"]}))));
        assert!(roles.knows(&["support".into(), "admin".into()]));
        assert!(!roles.knows(&["superuser".into()]));
    }

    #[test]
    fn only_super_admins_act_on_other_admins() {
        let roles = Roles::new(
            BTreeMap::new(),
            vec!["root".into(), "root-2".into()],
            vec!["admin".into(), "owner".into()],
        );
        let user = |id: &str, role: &str| User {
            id: id.into(),
            role: role.into(),
            ..User::new(
                "N".into(),
                format!("{id}@example.com"),
                None,
                chrono::Utc::now(),
            )
        };
        let (admin, other_admin) = (user("a", "admin"), user("b", "user,owner"));
        let (plain, root) = (user("u", "user"), user("root", "user"));
        assert!(roles.may_act_on(&admin, &plain), "an admin on a user");
        assert!(roles.may_act_on(&admin, &admin), "an admin on themselves");
        assert!(
            !roles.may_act_on(&admin, &other_admin),
            "any ADMIN_ROLES role counts"
        );
        assert!(
            !roles.may_act_on(&admin, &root),
            "a super-admin is an admin"
        );
        assert!(
            roles.may_act_on(&root, &other_admin),
            "a super-admin on an admin"
        );
        assert!(
            roles.may_act_on(&root, &user("root-2", "admin")),
            "and on another super-admin"
        );
    }
}
