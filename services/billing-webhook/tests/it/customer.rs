//! A user's own billing state through the real part (CustomerService): the customers linked to
//! them by `external_id`, or by a verified email when the customer has no `external_id`, and
//! nothing of anyone else's.
//! And an organization's: what was bought for it, and the grants and refunds of that.

use std::time::Duration;

use gatehouse_kit::db::Backend;
use gatehouse_kit::testing::eventually;
use gatehouse_proto::billing_webhook::v1 as pb;
use rstest::rstest;
use serde_json::Value;

use crate::support::{Billing, delivery, fixture};

/// The fixture `name` with `edit` applied to its JSON.
fn edited(name: &str, edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut body: Value = serde_json::from_slice(&fixture(name)).unwrap();
    edit(&mut body);
    serde_json::to_vec(&body).unwrap()
}

async fn state_of(
    billing: &Billing,
    user_id: &str,
    email: &str,
    verified: bool,
) -> pb::GetCustomerStateResponse {
    billing
        .customers
        .clone()
        .get_customer_state(pb::GetCustomerStateRequest {
            user_id: user_id.into(),
            email: email.into(),
            email_verified: verified,
        })
        .await
        .unwrap()
        .into_inner()
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_user_reads_the_customers_linked_to_them_and_no_others(#[case] backend: Backend) {
    let billing = Billing::start(backend).await;
    // The fixtures' customer is Jane Doe, external_id usr_8f2Kd93LmQ.
    for name in [
        "customer.state_changed",
        "subscription.created",
        "order.paid",
        "benefit_grant.created",
    ] {
        billing
            .receive(delivery(&format!("wh_state_{name}"), &fixture(name)))
            .await
            .unwrap();
    }
    // Another customer, known by email only.
    let by_email = edited("customer.created", |c| {
        c["data"]["id"] = "cus_email_only".into();
        c["data"]["external_id"] = Value::Null;
        c["data"]["email"] = "Lin@Example.com".into();
    });
    billing
        .receive(delivery("wh_state_email", &by_email))
        .await
        .unwrap();

    let jane = eventually(Duration::from_secs(10), || async {
        let state = state_of(&billing, "usr_8f2Kd93LmQ", "", false).await;
        (state.state_json.is_some()
            && !state.subscriptions_json.is_empty()
            && !state.orders_json.is_empty()
            && !state.benefit_grants_json.is_empty())
        .then_some(state)
    })
    .await
    .unwrap_or_else(|| panic!("{backend:?}: Jane's state was not projected"));
    let meters: Value = serde_json::from_str(jane.state_json.as_deref().unwrap()).unwrap();
    assert_eq!(meters["active_meters"][0]["balance"], -2840, "{backend:?}");

    // The email-only customer: theirs once the email is verified, case aside; not before.
    let lin = eventually(Duration::from_secs(10), || async {
        let state = state_of(&billing, "usr_lin", "lin@example.com", true).await;
        state.customer_json.is_some().then_some(state)
    })
    .await
    .unwrap_or_else(|| panic!("{backend:?}: the email-only customer was not found"));
    assert!(lin.customer_json.unwrap().contains("cus_email_only"));
    assert!(
        lin.subscriptions_json.is_empty(),
        "{backend:?}: nothing of Jane's"
    );
    let unverified = state_of(&billing, "usr_lin", "lin@example.com", false).await;
    assert_eq!(
        unverified,
        pb::GetCustomerStateResponse::default(),
        "{backend:?}"
    );
    // Jane's email does not reach her customer: it has an external_id, and it is not this user.
    let jane_email =
        serde_json::from_str::<Value>(jane.state_json.as_deref().unwrap()).unwrap()["email"]
            .as_str()
            .unwrap()
            .to_string();
    let impostor = state_of(&billing, "usr_other", &jane_email, true).await;
    assert_eq!(
        impostor,
        pb::GetCustomerStateResponse::default(),
        "{backend:?}"
    );
}

async fn organization_state(billing: &Billing, id: &str) -> pb::GetOrganizationStateResponse {
    billing
        .customers
        .clone()
        .get_organization_state(pb::GetOrganizationStateRequest {
            organization_id: id.into(),
        })
        .await
        .unwrap()
        .into_inner()
}

/// The ids in a list of entity JSONs.
fn ids(list: &[String]) -> Vec<String> {
    list.iter()
        .map(|json| {
            serde_json::from_str::<Value>(json).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_organization_reads_what_was_bought_for_it_and_nothing_else(#[case] backend: Backend) {
    let billing = Billing::start(backend).await;
    // The fixtures' subscription and order were bought for `team_42` (metadata.referenceId);
    // the grant is of that subscription, the refund of another order of it.
    for name in [
        "subscription.created",
        "order.paid",
        "benefit_grant.created",
        "refund.created",
    ] {
        billing
            .receive(delivery(&format!("wh_org_{name}"), &fixture(name)))
            .await
            .unwrap();
    }
    // The same customer's own subscription, with its grant, and another organization's order.
    let personal = edited("subscription.created", |s| {
        s["data"]["id"] = "sub_personal".into();
        s["data"]["metadata"] = serde_json::json!({});
    });
    let personal_grant = edited("benefit_grant.created", |g| {
        g["data"]["id"] = "grant_personal".into();
        g["data"]["subscription_id"] = "sub_personal".into();
    });
    let other = edited("order.paid", |o| {
        o["data"]["id"] = "ord_other".into();
        o["data"]["metadata"]["referenceId"] = "org_other".into();
    });
    for (id, body) in [
        ("wh_org_personal", personal),
        ("wh_org_personal_grant", personal_grant),
        ("wh_org_other", other),
    ] {
        billing.receive(delivery(id, &body)).await.unwrap();
    }

    let team = eventually(Duration::from_secs(10), || async {
        let state = organization_state(&billing, "team_42").await;
        (!state.subscriptions_json.is_empty()
            && !state.orders_json.is_empty()
            && !state.benefit_grants_json.is_empty()
            && !state.refunds_json.is_empty())
        .then_some(state)
    })
    .await
    .unwrap_or_else(|| panic!("{backend:?}: team_42's purchases were not projected"));
    assert_eq!(
        ids(&team.subscriptions_json),
        ["a4c8fa0b-cdde-4eb1-8ad3-1cd35e7f9af3"],
        "{backend:?}: not the customer's own subscription"
    );
    assert_eq!(
        ids(&team.orders_json),
        ["5fd3a5b6-d8e9-4f6c-9b8e-6d8e0f2a4bae"],
        "{backend:?}: not another organization's order"
    );
    assert_eq!(
        ids(&team.benefit_grants_json),
        ["c6ea1c2d-eff0-4ad3-8cf5-3ef57a9b1c15"],
        "{backend:?}: not the grant of the customer's own subscription"
    );
    assert_eq!(
        ids(&team.refunds_json),
        ["b5d90b1c-deef-4fc2-9be4-2de46f8a0b04"],
        "{backend:?}"
    );

    let other = eventually(Duration::from_secs(10), || async {
        let state = organization_state(&billing, "org_other").await;
        (!state.orders_json.is_empty()).then_some(state)
    })
    .await
    .unwrap_or_else(|| panic!("{backend:?}: org_other's order was not projected"));
    assert_eq!(ids(&other.orders_json), ["ord_other"], "{backend:?}");
    assert!(other.subscriptions_json.is_empty() && other.benefit_grants_json.is_empty());
    assert_eq!(
        organization_state(&billing, "org_nobody").await,
        pb::GetOrganizationStateResponse::default(),
        "{backend:?}"
    );
}
