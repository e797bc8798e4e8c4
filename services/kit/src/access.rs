//! Roles and permission checks as better-auth's access control has them (protocol §10.3,
//! shared by the admin and organization plugins): a role lists, per resource, the actions it
//! allows; a request names resources and the actions wanted on each, all of them (`AND`, the
//! default) or any one (`OR`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// What one role allows: resource → actions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Role(BTreeMap<String, BTreeSet<String>>);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Connector {
    And,
    Or,
}

/// What a check asks for: per resource, the actions and how they combine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request(Vec<(String, Vec<String>, Connector)>);

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AccessError {
    #[error("permissions must map each resource to a list of actions")]
    Malformed,
    #[error("no permission(s) were passed")]
    Empty,
}

impl Role {
    /// A role from `(resource, actions)` pairs.
    pub fn new<'a>(statements: impl IntoIterator<Item = (&'a str, &'a [&'a str])>) -> Self {
        Role(
            statements
                .into_iter()
                .map(|(resource, actions)| {
                    let actions = actions.iter().map(|a| a.to_string()).collect();
                    (resource.to_string(), actions)
                })
                .collect(),
        )
    }

    /// A role from JSON: `{"user": ["list", "get"], "session": ["list"]}`.
    pub fn from_json(value: &Value) -> Result<Self, AccessError> {
        let object = value.as_object().ok_or(AccessError::Malformed)?;
        let mut statements = BTreeMap::new();
        for (resource, actions) in object {
            let actions = actions
                .as_array()
                .ok_or(AccessError::Malformed)?
                .iter()
                .map(|a| a.as_str().map(str::to_string).ok_or(AccessError::Malformed))
                .collect::<Result<_, _>>()?;
            statements.insert(resource.clone(), actions);
        }
        Ok(Role(statements))
    }

    /// Whether this role allows everything `request` asks (a resource it does not know, or
    /// an empty list of actions, allows nothing).
    pub fn allows(&self, request: &Request) -> bool {
        request.0.iter().all(|(resource, actions, connector)| {
            let Some(allowed) = self.0.get(resource).filter(|_| !actions.is_empty()) else {
                return false;
            };
            match connector {
                Connector::And => actions.iter().all(|a| allowed.contains(a)),
                Connector::Or => actions.iter().any(|a| allowed.contains(a)),
            }
        })
    }
}

/// Roles by name from configuration's JSON: `{"support": {"user": ["list", "get"]}}`. The
/// error says which role is wrong and why.
pub fn roles_from_json(raw: &str) -> Result<BTreeMap<String, Role>, String> {
    let value: Value = serde_json::from_str(raw).map_err(|e| e.to_string())?;
    let object = value
        .as_object()
        .ok_or_else(|| "expected an object of roles".to_string())?;
    object
        .iter()
        .map(|(name, statements)| {
            let role = Role::from_json(statements).map_err(|e| format!("role {name}: {e}"))?;
            Ok((name.clone(), role))
        })
        .collect()
}

impl Request {
    /// `resource: [actions]` pairs, all required.
    pub fn all<'a>(wanted: impl IntoIterator<Item = (&'a str, &'a [&'a str])>) -> Self {
        Request(
            wanted
                .into_iter()
                .map(|(resource, actions)| {
                    let actions = actions.iter().map(|a| a.to_string()).collect();
                    (resource.to_string(), actions, Connector::And)
                })
                .collect(),
        )
    }

    /// better-auth's `permissions` body: `{"user": ["list"], "session": {"actions": ["list",
    /// "revoke"], "connector": "OR"}}`.
    pub fn from_json(value: &Value) -> Result<Self, AccessError> {
        let object = value.as_object().ok_or(AccessError::Malformed)?;
        if object.is_empty() {
            return Err(AccessError::Empty);
        }
        let mut wanted = Vec::new();
        for (resource, spec) in object {
            let (actions, connector) = match spec {
                Value::Array(actions) => (actions, Connector::And),
                Value::Object(spec) => {
                    let actions = spec
                        .get("actions")
                        .and_then(Value::as_array)
                        .ok_or(AccessError::Malformed)?;
                    let connector = match spec.get("connector").and_then(Value::as_str) {
                        Some("OR") => Connector::Or,
                        None | Some("AND") => Connector::And,
                        Some(_) => return Err(AccessError::Malformed),
                    };
                    (actions, connector)
                }
                _ => return Err(AccessError::Malformed),
            };
            let actions = actions
                .iter()
                .map(|a| a.as_str().map(str::to_string).ok_or(AccessError::Malformed))
                .collect::<Result<_, _>>()?;
            wanted.push((resource.clone(), actions, connector));
        }
        Ok(Request(wanted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn admin() -> Role {
        Role::new([
            ("user", &["create", "list", "ban"][..]),
            ("session", &["list", "revoke"][..]),
        ])
    }

    #[test]
    fn every_action_of_every_resource_is_needed_unless_or() {
        let wanted = |v| Request::from_json(&v).unwrap();
        assert!(admin().allows(&wanted(json!({"user": ["list", "ban"]}))));
        assert!(admin().allows(&wanted(json!({"user": ["list"], "session": ["revoke"]}))));
        assert!(!admin().allows(&wanted(json!({"user": ["list", "delete"]}))));
        assert!(!admin().allows(&wanted(json!({"user": ["list"], "session": ["delete"]}))));
        assert!(!admin().allows(&wanted(json!({"organization": ["update"]}))));
        assert!(admin().allows(&wanted(
            json!({"user": {"actions": ["delete", "list"], "connector": "OR"}})
        )));
        assert!(!Role::default().allows(&wanted(json!({"user": ["list"]}))));
        assert!(
            !admin().allows(&wanted(json!({"user": []}))),
            "asking for nothing"
        );
    }

    #[test]
    fn malformed_and_empty_requests_are_refused() {
        assert_eq!(Request::from_json(&json!({})), Err(AccessError::Empty));
        assert_eq!(
            Request::from_json(&json!({"user": "list"})),
            Err(AccessError::Malformed)
        );
        assert_eq!(
            Request::from_json(&json!(["user"])),
            Err(AccessError::Malformed)
        );
        assert_eq!(
            Role::from_json(&json!({"user": ["list", 3]})),
            Err(AccessError::Malformed)
        );
    }
}
