//! The typed Polar webhook models against the 27 reference fixtures
//! (`tests/fixtures/polar/<event-type>.json`, from `shared/reference/polar-fixtures/`).

use std::path::PathBuf;
use std::str::FromStr;

use chrono::{DateTime, SecondsFormat, Utc};
use gatehouse_billing_webhook::polar::{
    AggregationFunc, Benefit, BenefitType, BillingReason, CheckoutDiscount, CheckoutStatus,
    CustomerCancellationReason, Decimal, Discount, DiscountDuration, EntityRef, Envelope, Event,
    FilterConjunction, FilterNode, FilterOperator, GithubPermission, GrantProperties,
    LicenseKeyTimeframe, OrderStatus, PolarParseError, Price, PriceAmountType, RefundReason,
    RefundStatus, Scalar, SubscriptionStatus, TaxBehavior, parse_event,
};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// helpers

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/polar")
}

/// The fixture names (event types), sorted.
fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixture_dir())
        .expect("fixture dir")
        .map(|entry| {
            entry
                .expect("dir entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter_map(|name| name.strip_suffix(".json").map(str::to_owned))
        .collect();
    names.sort();
    names
}

fn fixture_bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture_dir().join(format!("{name}.json"))).expect("fixture file")
}

fn fixture_value(name: &str) -> Value {
    serde_json::from_slice(&fixture_bytes(name)).expect("fixture JSON")
}

fn parse_fixture(name: &str) -> Envelope {
    parse_event(&fixture_bytes(name)).unwrap_or_else(|error| panic!("{name}: {error}"))
}

fn parse_value(value: &Value) -> Result<Envelope, PolarParseError> {
    parse_event(&serde_json::to_vec(value).expect("serialise test value"))
}

fn ts(text: &str) -> DateTime<chrono::FixedOffset> {
    DateTime::parse_from_rfc3339(text).expect("test timestamp")
}

/// Replaces every RFC 3339 string by a canonical spelling of the same instant, so
/// `…38.120000Z` and `…38.120Z` compare equal.
fn normalise(value: &Value) -> Value {
    match value {
        Value::String(text) => match DateTime::parse_from_rfc3339(text) {
            Ok(instant) => Value::String(
                instant
                    .with_timezone(&Utc)
                    .to_rfc3339_opts(SecondsFormat::Nanos, true),
            ),
            Err(_) => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(normalise).collect()),
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, item)| (key.clone(), normalise(item)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Paths where two JSON values differ (for readable failures).
fn differences(left: &Value, right: &Value, path: &str, out: &mut Vec<String>) {
    match (left, right) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys().filter(|key| !a.contains_key(*key))) {
                let child = format!("{path}.{key}");
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => differences(x, y, &child, out),
                    (x, y) => out.push(format!("{child}: {x:?} vs {y:?}")),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                differences(x, y, &format!("{path}[{index}]"), out);
            }
        }
        (x, y) if x != y => out.push(format!("{path}: {x} vs {y}")),
        _ => {}
    }
}

fn assert_round_trip(name: &str, original: &Value, envelope: &Envelope) {
    let written = envelope.to_value().expect("serialise envelope");
    let (expected, actual) = (normalise(original), normalise(&written));
    let mut diffs = Vec::new();
    differences(&expected, &actual, "$", &mut diffs);
    assert!(
        diffs.is_empty(),
        "{name}: round trip differs at:\n{}",
        diffs.join("\n")
    );
    assert_eq!(expected, actual, "{name}");
}

/// The keys of every non-empty `extra` map in a `{:?}` rendering of a parsed envelope, found by
/// scanning for `extra: {` and reading the top-level keys of the map that follows.
fn keys_in_extras(debug: &str) -> Vec<String> {
    const NEEDLE: &str = "extra: {";
    let mut keys = Vec::new();
    let mut rest = debug;
    while let Some(position) = rest.find(NEEDLE) {
        rest = &rest[position + NEEDLE.len()..];
        let chars: Vec<char> = rest.chars().take(200_000).collect();
        let mut index = 0;
        // entries: "key": value (, "key": value)* }
        while index < chars.len() && chars[index] != '}' {
            // key
            assert_eq!(
                chars[index],
                '"',
                "unexpected Debug layout near {:?}",
                &rest[..40.min(rest.len())]
            );
            index += 1;
            let mut key = String::new();
            while chars[index] != '"' {
                if chars[index] == '\\' {
                    index += 1;
                }
                key.push(chars[index]);
                index += 1;
            }
            keys.push(key);
            index += 1;
            // value: up to a top-level ',' or '}'
            let mut depth = 0usize;
            let mut in_string = false;
            loop {
                let c = chars[index];
                if in_string {
                    if c == '\\' {
                        index += 1;
                    } else if c == '"' {
                        in_string = false;
                    }
                } else if c == '"' {
                    in_string = true;
                } else if matches!(c, '{' | '[' | '(') {
                    depth += 1;
                } else if matches!(c, '}' | ']' | ')') {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                } else if c == ',' && depth == 0 {
                    index += 1;
                    while chars[index] == ' ' {
                        index += 1;
                    }
                    break;
                }
                index += 1;
            }
        }
    }
    keys
}

fn entity_family(event_type: &str) -> &str {
    event_type.split('.').next().unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// every fixture

#[test]
fn all_27_fixtures_are_present() {
    let names = fixture_names();
    assert_eq!(names.len(), 27, "{names:?}");
    for name in &names {
        assert!(
            Event::KNOWN_TYPES.contains(&name.as_str()),
            "{name} has no typed variant"
        );
    }
}

#[test]
fn every_fixture_parses_into_its_typed_variant() {
    for name in fixture_names() {
        let raw = fixture_value(&name);
        let envelope = parse_fixture(&name);
        assert!(!envelope.event.is_unknown(), "{name} parsed as Unknown");
        assert_eq!(envelope.event_type(), name);
        assert_eq!(envelope.api_version(), Some("2026-04"), "{name}");
        assert_eq!(
            envelope.timestamp(),
            ts(raw["timestamp"].as_str().expect("timestamp")),
            "{name}"
        );
        // The entity is the one its type's family carries.
        let family_matches = match (entity_family(&name), envelope.entity()) {
            ("benefit", EntityRef::Benefit(benefit)) => !benefit.is_unknown(),
            ("benefit_grant", EntityRef::BenefitGrant(grant)) => !grant.benefit.is_unknown(),
            ("checkout", EntityRef::Checkout(_)) => true,
            ("customer", EntityRef::Customer(_)) => name != "customer.state_changed",
            ("customer", EntityRef::CustomerState(_)) => name == "customer.state_changed",
            ("order", EntityRef::Order(_)) => true,
            ("organization", EntityRef::Organization(_)) => true,
            ("product", EntityRef::Product(_)) => true,
            ("refund", EntityRef::Refund(_)) => true,
            ("subscription", EntityRef::Subscription(_)) => true,
            _ => false,
        };
        assert!(
            family_matches,
            "{name}: wrong entity {:?}",
            envelope.entity()
        );
        // Accessors agree with the raw data.
        let data = &raw["data"];
        assert_eq!(envelope.entity_id(), data["id"].as_str(), "{name}");
        let version = data["modified_at"]
            .as_str()
            .or(data["created_at"].as_str())
            .map(ts);
        assert_eq!(envelope.entity_modified_at(), version, "{name}");
    }
}

#[test]
fn every_fixture_round_trips_without_loss() {
    for name in fixture_names() {
        let raw = fixture_value(&name);
        let envelope = parse_fixture(&name);
        assert_round_trip(&name, &raw, &envelope);
        // And the written form parses back to the same typed value.
        let again = Envelope::from_value(envelope.to_value().expect("serialise")).expect("reparse");
        assert_eq!(again, envelope, "{name}");
    }
}

#[test]
fn every_declared_field_is_typed_and_only_undeclared_ones_land_in_extra() {
    for name in fixture_names() {
        let envelope = parse_fixture(&name);
        let keys = keys_in_extras(&format!("{envelope:?}"));
        let raw = String::from_utf8(fixture_bytes(&name)).expect("utf-8");
        let expected_guild_tokens = raw.matches("\"guild_token\"").count();
        let expected_notification_settings = raw.matches("\"notification_settings\"").count();
        let unexpected: Vec<&String> = keys
            .iter()
            .filter(|key| *key != "guild_token" && *key != "notification_settings")
            .collect();
        assert!(unexpected.is_empty(), "{name}: untyped keys {unexpected:?}");
        assert_eq!(
            keys.len(),
            expected_guild_tokens + expected_notification_settings,
            "{name}: {keys:?}"
        );
    }
}

#[test]
fn undeclared_guild_token_and_notification_settings_survive() {
    // guild_token on a Discord benefit, top level and embedded in a product.
    let raw = fixture_value("benefit.updated");
    let envelope = parse_fixture("benefit.updated");
    let Event::BenefitUpdated(benefit) = &envelope.event else {
        panic!("not benefit.updated: {:?}", envelope.event)
    };
    let Benefit::Discord(discord) = benefit.as_ref() else {
        panic!("not discord: {benefit:?}")
    };
    let token = raw["data"]["properties"]["guild_token"]
        .as_str()
        .expect("token");
    assert_eq!(discord.properties.guild_token(), Some(token));
    assert_eq!(discord.properties.guild_id, "1021598765432109876");
    assert!(discord.properties.kick_member);
    let written = envelope.to_value().expect("serialise");
    assert_eq!(written["data"]["properties"]["guild_token"], token);

    let product = parse_fixture("product.created")
        .to_value()
        .expect("serialise");
    assert!(product["data"]["benefits"][0]["properties"]["guild_token"].is_string());

    // notification_settings on the organization.
    let raw = fixture_value("organization.updated");
    let envelope = parse_fixture("organization.updated");
    let Event::OrganizationUpdated(organization) = &envelope.event else {
        panic!("not organization.updated")
    };
    assert_eq!(
        organization.extra.get("notification_settings"),
        Some(&raw["data"]["notification_settings"])
    );
    let written = envelope.to_value().expect("serialise");
    assert_eq!(
        written["data"]["notification_settings"],
        json!({"new_order": true, "new_subscription": true, "chargeback_prevention": true, "subscription_renewal": false})
    );
}

// ---------------------------------------------------------------------------------------------
// key values

#[test]
fn one_time_order_amounts_status_and_percentage_once_discount() {
    let created = parse_fixture("order.created");
    let Event::OrderCreated(order) = &created.event else {
        panic!("not order.created")
    };
    assert_eq!(order.status, OrderStatus::Pending);
    assert!(!order.paid);
    assert_eq!(order.due_amount, 2174);
    assert_eq!(order.platform_fee_currency, None);
    // Never modified: the version falls back to created_at.
    assert_eq!(created.entity_modified_at(), Some(order.created_at));

    let paid = parse_fixture("order.paid");
    let Event::OrderPaid(order) = &paid.event else {
        panic!("not order.paid")
    };
    assert_eq!(order.status, OrderStatus::Paid);
    assert!(order.paid);
    assert_eq!(
        (
            order.subtotal_amount,
            order.discount_amount,
            order.net_amount,
            order.tax_amount,
            order.total_amount
        ),
        (2500, 500, 2000, 174, 2174)
    );
    assert_eq!(
        order.net_amount,
        order.subtotal_amount - order.discount_amount
    );
    assert_eq!(order.total_amount, order.net_amount + order.tax_amount);
    assert_eq!((order.due_amount, order.platform_fee_amount), (0, 139));
    assert_eq!(order.billing_reason, BillingReason::Purchase);
    assert_eq!(order.items.len(), 1);
    assert_eq!(order.items[0].amount, 2500);
    assert_eq!(
        order.product.as_ref().map(|p| p.core.name.as_str()),
        Some("Acme Desktop")
    );
    assert_eq!(
        order.metadata.get("referenceId").and_then(Scalar::as_str),
        Some("team_42")
    );
    assert_eq!(
        order
            .customer
            .metadata
            .get("crm_id")
            .and_then(Scalar::as_i64),
        Some(48213)
    );
    assert_eq!(
        order
            .customer
            .tax_id
            .as_ref()
            .map(|t| (t.value(), t.format())),
        Some(("US123456789", "us_ein"))
    );
    let Some(Discount::Percentage(discount)) = &order.discount else {
        panic!("not a percentage discount: {:?}", order.discount)
    };
    assert_eq!(discount.common.duration, DiscountDuration::Once);
    assert_eq!(discount.common.duration_in_months, None);
    assert_eq!(discount.basis_points, 2000);
    assert_eq!(discount.common.code.as_deref(), Some("LAUNCH20"));
}

#[test]
fn refunded_subscription_order_with_repeating_discount_and_line_items() {
    let envelope = parse_fixture("order.refunded");
    let Event::OrderRefunded(order) = &envelope.event else {
        panic!("not order.refunded")
    };
    assert_eq!(order.status, OrderStatus::PartiallyRefunded);
    assert_eq!(order.billing_reason, BillingReason::SubscriptionCycle);
    assert_eq!(
        (order.refunded_amount, order.refunded_tax_amount),
        (1000, 87)
    );
    assert_eq!(
        order.refundable_amount,
        order.net_amount - order.refunded_amount
    );
    let item_total: i64 = order.items.iter().map(|item| item.amount).sum();
    assert_eq!(item_total, order.subtotal_amount);
    let item_tax: i64 = order.items.iter().map(|item| item.tax_amount).sum();
    assert_eq!(item_tax, order.tax_amount);
    assert!(order.items[1].start_timestamp.is_some());
    let Some(Discount::Percentage(discount)) = &order.discount else {
        panic!("discount")
    };
    assert_eq!(discount.common.duration, DiscountDuration::Repeating);
    assert_eq!(discount.common.duration_in_months, Some(3));
    assert_eq!(discount.basis_points, 5000);
    let subscription = order.subscription.as_ref().expect("embedded subscription");
    assert_eq!(subscription.core.status, SubscriptionStatus::Active);
    assert_eq!(
        order.subscription_id.as_deref(),
        Some(subscription.core.id.as_str())
    );
}

#[test]
fn metered_unit_amount_is_an_exact_decimal() {
    let envelope = parse_fixture("product.created");
    let Event::ProductCreated(product) = &envelope.event else {
        panic!("not product.created")
    };
    let kinds: Vec<PriceAmountType> = product.prices.iter().map(Price::kind).collect();
    assert_eq!(
        kinds,
        [PriceAmountType::Fixed, PriceAmountType::MeteredUnit]
    );
    let Price::Fixed(fixed) = &product.prices[0] else {
        panic!("fixed")
    };
    assert_eq!(fixed.price_amount, 2000);
    assert_eq!(fixed.common.tax_behavior, Some(TaxBehavior::Exclusive));
    let Price::MeteredUnit(metered) = &product.prices[1] else {
        panic!("metered_unit")
    };
    let five_hundredths = Decimal::from_str("0.05").expect("decimal");
    assert_eq!(metered.unit_amount, five_hundredths);
    assert_eq!(metered.unit_amount.to_string(), "0.05");
    assert_eq!(metered.unit_amount.scale(), 2);
    assert_eq!(metered.cap_amount, Some(50_000));
    assert_eq!(metered.meter.name, "API requests");
    // Exact arithmetic: the renewal order's metered line bills 39,120 − 10,000 credited units.
    assert_eq!(
        metered.unit_amount * Decimal::from(29_120),
        Decimal::from(1456)
    );
    // Written back as the same string, never a float.
    let written = envelope.to_value().expect("serialise");
    assert_eq!(written["data"]["prices"][1]["unit_amount"], json!("0.05"));

    // The one-time product's pay-what-you-want price.
    let envelope = parse_fixture("product.updated");
    let Event::ProductUpdated(product) = &envelope.event else {
        panic!("not product.updated")
    };
    let Price::Custom(custom) = &product.prices[0] else {
        panic!("custom: {:?}", product.prices)
    };
    assert_eq!(
        (
            custom.minimum_amount,
            custom.preset_amount,
            custom.maximum_amount
        ),
        (1000, Some(2500), Some(20_000))
    );
    assert_eq!(custom.common.tax_behavior, None);
    assert!(!product.core.is_recurring);
}

#[test]
fn checkout_forever_fixed_discount_prices_map_and_public_benefits() {
    let created = parse_fixture("checkout.created");
    let Event::CheckoutCreated(checkout) = &created.event else {
        panic!("checkout.created")
    };
    assert_eq!(checkout.status, CheckoutStatus::Open);
    assert_eq!(checkout.tax_amount, None);
    assert_eq!(checkout.customer_id, None);
    // Created for a signed-in user: external id and email are known before a customer exists.
    assert_eq!(created.customer_id(), None);
    assert_eq!(created.customer_external_id(), Some("usr_8f2Kd93LmQ"));
    assert_eq!(created.customer_email(), Some("jane.doe@example.com"));

    let updated = parse_fixture("checkout.updated");
    let Event::CheckoutUpdated(checkout) = &updated.event else {
        panic!("checkout.updated")
    };
    assert_eq!(checkout.status, CheckoutStatus::Confirmed);
    assert_eq!(
        (
            checkout.amount,
            checkout.discount_amount,
            checkout.net_amount,
            checkout.tax_amount,
            checkout.total_amount
        ),
        (2000, 500, 1500, Some(131), 1631)
    );
    let Some(CheckoutDiscount::Fixed(discount)) = &checkout.discount else {
        panic!("fixed discount: {:?}", checkout.discount)
    };
    assert_eq!(discount.common.duration, DiscountDuration::Forever);
    assert_eq!(discount.common.duration_in_months, None);
    assert_eq!(discount.amount, 500);
    let amounts = discount.amounts.as_ref().expect("amounts");
    assert_eq!((amounts["usd"], amounts["eur"]), (500, 450));
    let prices = checkout.prices.as_ref().expect("prices map");
    let product_id = checkout.product_id.as_deref().expect("product id");
    assert_eq!(prices[product_id].len(), 2);
    let product = checkout.product.as_ref().expect("product");
    let credit = product
        .benefits
        .iter()
        .find(|benefit| benefit.kind == BenefitType::MeterCredit)
        .expect("meter credit benefit");
    assert_eq!(
        credit.properties.as_ref().and_then(|p| p.units),
        Some(10_000)
    );
    assert!(
        product
            .benefits
            .iter()
            .any(|b| b.kind == BenefitType::FeatureFlag)
    );
    let fields = checkout
        .attached_custom_fields
        .as_ref()
        .expect("custom fields");
    assert_eq!(fields[0].custom_field.slug, "company");
    assert_eq!(fields[0].custom_field.properties.max_length, Some(120));
    assert_eq!(updated.customer_external_id(), Some("usr_8f2Kd93LmQ"));
    assert_eq!(updated.customer_email(), Some("jane.doe@example.com"));
}

#[test]
fn benefit_variants_and_their_properties() {
    let envelope = parse_fixture("benefit.created");
    let Event::BenefitCreated(benefit) = &envelope.event else {
        panic!("benefit.created")
    };
    assert_eq!(benefit.kind(), BenefitType::LicenseKeys);
    let Benefit::LicenseKeys(license) = benefit.as_ref() else {
        panic!("license_keys")
    };
    assert_eq!(license.properties.prefix.as_deref(), Some("ACME"));
    let expires = license.properties.expires.as_ref().expect("expires");
    assert_eq!(
        (expires.ttl, &expires.timeframe),
        (1, &LicenseKeyTimeframe::Year)
    );
    assert_eq!(
        license.properties.activations.as_ref().map(|a| a.limit),
        Some(3)
    );
    assert_eq!(license.properties.limit_usage, None);
    assert_eq!(
        envelope.organization_id(),
        Some("0b7c3c4e-6f1a-4d55-9a3e-2f0d8e1c5a10")
    );
    assert_eq!(envelope.customer_external_id(), None);

    let envelope = parse_fixture("product.created");
    let Event::ProductCreated(product) = &envelope.event else {
        panic!("product.created")
    };
    let kinds: Vec<BenefitType> = product.benefits.iter().map(Benefit::kind).collect();
    assert_eq!(
        kinds,
        [
            BenefitType::Discord,
            BenefitType::GithubRepository,
            BenefitType::Custom,
            BenefitType::MeterCredit,
            BenefitType::FeatureFlag
        ]
    );
    let Benefit::GithubRepository(github) = &product.benefits[1] else {
        panic!("github")
    };
    assert_eq!(github.properties.permission, GithubPermission::Pull);
    let Benefit::MeterCredit(credit) = &product.benefits[3] else {
        panic!("meter_credit")
    };
    assert_eq!(
        (credit.properties.units, credit.properties.rollover),
        (10_000, false)
    );
    let Benefit::FeatureFlag(flag) = &product.benefits[4] else {
        panic!("feature_flag")
    };
    assert_eq!(
        flag.common.metadata.get("flag").and_then(Scalar::as_str),
        Some("beta_features")
    );

    let envelope = parse_fixture("product.updated");
    let Event::ProductUpdated(product) = &envelope.event else {
        panic!("product.updated")
    };
    let Benefit::Downloadables(downloads) = &product.benefits[1] else {
        panic!("downloadables")
    };
    assert_eq!(downloads.properties.files.len(), 1);
    assert_eq!(
        downloads
            .properties
            .archived
            .get(&downloads.properties.files[0]),
        Some(&false)
    );
}

#[test]
fn benefit_grant_properties_are_typed_after_the_embedded_benefit() {
    let envelope = parse_fixture("benefit_grant.created");
    let Event::BenefitGrantCreated(grant) = &envelope.event else {
        panic!("created")
    };
    assert_eq!(grant.benefit.kind(), BenefitType::GithubRepository);
    let GrantProperties::GithubRepository(properties) = &grant.properties else {
        panic!("github props: {:?}", grant.properties)
    };
    assert_eq!(properties.repository_name.as_deref(), Some("pro-templates"));
    assert_eq!(
        properties.account_id,
        Some(Some("3b1f0c6e-2d4a-4e8b-9c7f-5a3d1e9b7c50".to_owned()))
    );
    assert_eq!(grant.previous_properties, None);
    assert_eq!(envelope.customer_external_id(), Some("usr_8f2Kd93LmQ"));
    assert_eq!(
        grant.member.as_ref().map(|m| m.role.as_str()),
        Some("owner")
    );

    let envelope = parse_fixture("benefit_grant.updated");
    let Event::BenefitGrantUpdated(grant) = &envelope.event else {
        panic!("updated")
    };
    assert!(grant.order_id.is_some() && grant.subscription_id.is_none());
    let GrantProperties::Downloadables(now) = &grant.properties else {
        panic!("downloadables")
    };
    let Some(GrantProperties::Downloadables(before)) = &grant.previous_properties else {
        panic!("previous downloadables")
    };
    assert_eq!(
        (
            now.files.as_ref().map(Vec::len),
            before.files.as_ref().map(Vec::len)
        ),
        (Some(1), Some(0))
    );

    let envelope = parse_fixture("benefit_grant.revoked");
    let Event::BenefitGrantRevoked(grant) = &envelope.event else {
        panic!("revoked")
    };
    assert!(grant.is_revoked && !grant.is_granted && grant.revoked_at.is_some());
    assert!(matches!(grant.benefit, Benefit::Custom(_)));
    assert!(matches!(grant.properties, GrantProperties::Custom(_)));

    let envelope = parse_fixture("benefit_grant.cycled");
    let Event::BenefitGrantCycled(grant) = &envelope.event else {
        panic!("cycled")
    };
    let GrantProperties::MeterCredit(now) = &grant.properties else {
        panic!("meter credit")
    };
    let Some(GrantProperties::MeterCredit(before)) = &grant.previous_properties else {
        panic!("previous")
    };
    assert_eq!(now.last_credited_units, Some(10_000));
    assert!(now.last_credited_at > before.last_credited_at);
}

#[test]
fn customer_state_has_a_negative_meter_balance_and_typed_snapshot() {
    let envelope = parse_fixture("customer.state_changed");
    let Event::CustomerStateChanged(state) = &envelope.event else {
        panic!("state_changed")
    };
    assert_eq!(
        state.customer.external_id.as_deref(),
        Some("usr_8f2Kd93LmQ")
    );
    let meter = &state.active_meters[0];
    assert_eq!(meter.balance.as_f64(), -2840.0);
    assert!(meter.balance.as_f64() < 0.0);
    assert_eq!(
        meter.balance.as_f64(),
        meter.credited_units.as_f64() - meter.consumed_units.as_f64()
    );
    assert_eq!(meter.consumed_units.as_i64(), Some(12_840));

    let subscription = &state.active_subscriptions[0];
    // active|trialing on the wire, not the 1.x SDKs' granted|disabled (reference §2.2).
    assert_eq!(subscription.status, SubscriptionStatus::Active);
    assert_eq!(subscription.meters[0].amount, 142);

    let kinds: Vec<&BenefitType> = state
        .granted_benefits
        .iter()
        .map(|g| &g.benefit_type)
        .collect();
    assert_eq!(
        kinds,
        [
            &BenefitType::GithubRepository,
            &BenefitType::LicenseKeys,
            &BenefitType::MeterCredit
        ]
    );
    let GrantProperties::LicenseKeys(license) = &state.granted_benefits[1].properties else {
        panic!("license props")
    };
    assert_eq!(license.display_key.as_deref(), Some("****-4F2A9C"));
    assert_eq!(license.user_provided_key, None);
    assert!(matches!(
        state.granted_benefits[2].properties,
        GrantProperties::MeterCredit(_)
    ));

    // Integers stay integers when written back.
    let written = envelope.to_value().expect("serialise");
    assert_eq!(written["data"]["active_meters"][0]["balance"], json!(-2840));
}

#[test]
fn customer_lifecycle() {
    let created = parse_fixture("customer.created");
    let Event::CustomerCreated(customer) = &created.event else {
        panic!("created")
    };
    assert_eq!(customer.billing_address, None);
    assert_eq!(created.customer_external_id(), Some("usr_8f2Kd93LmQ"));
    assert_eq!(created.customer_email(), Some("jane.doe@example.com"));

    let deleted = parse_fixture("customer.deleted");
    let Event::CustomerDeleted(customer) = &deleted.event else {
        panic!("deleted")
    };
    assert!(customer.deleted_at.is_some());
    assert_eq!(
        customer
            .billing_address
            .as_ref()
            .and_then(|a| a.state.as_deref()),
        Some("US-CA")
    );
}

#[test]
fn subscription_statuses_through_the_lifecycle() {
    let expectations = [
        ("subscription.created", SubscriptionStatus::Trialing, false),
        ("subscription.active", SubscriptionStatus::Active, false),
        ("subscription.updated", SubscriptionStatus::Active, false),
        ("subscription.canceled", SubscriptionStatus::Active, true),
        ("subscription.uncanceled", SubscriptionStatus::Active, false),
        ("subscription.revoked", SubscriptionStatus::Canceled, true),
    ];
    for (name, status, cancel_at_period_end) in expectations {
        let envelope = parse_fixture(name);
        let EntityRef::Subscription(subscription) = envelope.entity() else {
            panic!("{name}")
        };
        assert_eq!(subscription.core.status, status, "{name}");
        assert_eq!(
            subscription.core.cancel_at_period_end, cancel_at_period_end,
            "{name}"
        );
        assert_eq!(
            envelope.customer_external_id(),
            Some("usr_8f2Kd93LmQ"),
            "{name}"
        );
        let Some(Discount::Percentage(discount)) = &subscription.discount else {
            panic!("{name}")
        };
        assert_eq!(
            discount.common.duration,
            DiscountDuration::Repeating,
            "{name}"
        );
    }

    let canceled = parse_fixture("subscription.canceled");
    let Event::SubscriptionCanceled(subscription) = &canceled.event else {
        panic!("canceled")
    };
    assert_eq!(
        subscription.core.customer_cancellation_reason,
        Some(CustomerCancellationReason::TooExpensive)
    );
    assert!(subscription.core.ends_at.is_some() && subscription.core.ended_at.is_none());

    let revoked = parse_fixture("subscription.revoked");
    let Event::SubscriptionRevoked(subscription) = &revoked.event else {
        panic!("revoked")
    };
    assert!(subscription.core.ended_at.is_some());

    let updated = parse_fixture("subscription.updated");
    let Event::SubscriptionUpdated(subscription) = &updated.event else {
        panic!("updated")
    };
    let pending = subscription
        .pending_update
        .as_ref()
        .expect("pending update");
    assert_eq!(pending.applies_at, subscription.core.current_period_end);
}

#[test]
fn subscription_meter_has_nested_filter_and_count_aggregation() {
    let envelope = parse_fixture("subscription.active");
    let Event::SubscriptionActive(subscription) = &envelope.event else {
        panic!("active")
    };
    let meter = &subscription.meters[0].meter;
    assert_eq!(meter.aggregation.kind(), AggregationFunc::Count);
    assert_eq!(meter.filter.conjunction, FilterConjunction::And);
    let FilterNode::Clause(first) = &meter.filter.clauses[0] else {
        panic!("clause")
    };
    assert_eq!(
        (first.property.as_str(), &first.operator),
        ("name", &FilterOperator::Eq)
    );
    assert_eq!(first.value.as_str(), Some("api.request"));
    let FilterNode::Filter(nested) = &meter.filter.clauses[1] else {
        panic!("nested filter")
    };
    assert_eq!(nested.conjunction, FilterConjunction::Or);
    let FilterNode::Clause(lt) = &nested.clauses[0] else {
        panic!("clause")
    };
    assert_eq!(
        (&lt.operator, lt.value.as_i64()),
        (&FilterOperator::Lt, Some(500))
    );
    let FilterNode::Clause(billable) = &nested.clauses[1] else {
        panic!("clause")
    };
    assert_eq!(billable.value.as_bool(), Some(true));
}

#[test]
fn refund_with_dispute() {
    let created = parse_fixture("refund.created");
    let Event::RefundCreated(refund) = &created.event else {
        panic!("refund.created")
    };
    assert_eq!(refund.status, RefundStatus::Pending);
    assert_eq!(refund.reason, RefundReason::DisputePrevention);
    assert_eq!((refund.amount, refund.tax_amount), (1000, 87));
    let dispute = refund.dispute.as_ref().expect("dispute");
    assert_eq!(dispute.status.as_str(), "prevented");
    assert!(dispute.closed && !dispute.resolved);
    // A refund names its customer by id only.
    assert_eq!(created.customer_external_id(), None);
    assert_eq!(
        created.customer_id(),
        Some("5d0e6b2a-8c41-4f7e-b3a9-1e6f2c7d9a21")
    );

    let updated = parse_fixture("refund.updated");
    let Event::RefundUpdated(refund) = &updated.event else {
        panic!("refund.updated")
    };
    assert_eq!(refund.status, RefundStatus::Succeeded);
}

#[test]
fn organization_settings() {
    let envelope = parse_fixture("organization.updated");
    let Event::OrganizationUpdated(organization) = &envelope.event else {
        panic!("org")
    };
    assert_eq!(organization.status.as_str(), "active");
    assert_eq!(organization.default_tax_behavior, TaxBehavior::Location);
    assert_eq!(
        organization
            .subscription_settings
            .benefit_revocation_grace_period,
        7
    );
    let features = organization.feature_settings.as_ref().expect("features");
    assert_eq!(features.disputes_enabled, Some(true));
    // Declared in the SDK but not sent in this fixture: stays absent when written back.
    assert_eq!(features.seat_based_pricing_enabled, None);
    let written = envelope.to_value().expect("serialise");
    assert!(
        written["data"]["feature_settings"]
            .get("seat_based_pricing_enabled")
            .is_none()
    );
    assert_eq!(envelope.entity_id(), envelope.organization_id());
}

// ---------------------------------------------------------------------------------------------
// openness: unknown types, unknown enum values, other Polar event types

#[test]
fn unknown_event_type_keeps_its_data() {
    let body = json!({
        "type": "customer_seat.assigned",
        "timestamp": "2026-10-02T09:00:00.000001Z",
        "api_version": "2026-10",
        "data": {
            "id": "0f0f0f0f-1111-4222-8333-444455556666",
            "created_at": "2026-10-02T08:59:59.000000Z",
            "modified_at": null,
            "status": "pending",
            "customer": {"external_id": "usr_8f2Kd93LmQ", "email": "jane.doe@example.com"}
        }
    });
    let envelope = parse_value(&body).expect("unknown types parse");
    let Event::Unknown { event_type, data } = &envelope.event else {
        panic!("expected Unknown, got {:?}", envelope.event)
    };
    assert_eq!(event_type, "customer_seat.assigned");
    assert_eq!(data, &body["data"]);
    assert_eq!(envelope.event_type(), "customer_seat.assigned");
    assert_eq!(
        envelope.entity_id(),
        Some("0f0f0f0f-1111-4222-8333-444455556666")
    );
    assert_eq!(
        envelope.entity_modified_at(),
        Some(ts("2026-10-02T08:59:59Z"))
    );
    assert_eq!(envelope.customer_external_id(), Some("usr_8f2Kd93LmQ"));
    assert_round_trip("customer_seat.assigned", &body, &envelope);
}

#[test]
fn unknown_order_status_parses_and_round_trips() {
    let mut body = fixture_value("order.paid");
    body["data"]["status"] = json!("frozen");
    let envelope = parse_value(&body).expect("parse");
    let Event::OrderPaid(order) = &envelope.event else {
        panic!("order.paid")
    };
    assert_eq!(order.status, OrderStatus::Unknown("frozen".to_owned()));
    assert!(order.status.is_unknown());
    assert_round_trip("order.paid/frozen", &body, &envelope);
}

#[test]
fn unknown_benefit_type_keeps_the_raw_object() {
    let mut body = fixture_value("benefit.created");
    body["data"]["type"] = json!("new_thing");
    body["data"]["properties"] = json!({"anything": [1, 2, 3]});
    let envelope = parse_value(&body).expect("parse");
    let Event::BenefitCreated(benefit) = &envelope.event else {
        panic!("benefit.created")
    };
    let Benefit::Unknown(raw) = benefit.as_ref() else {
        panic!("expected Unknown: {benefit:?}")
    };
    assert_eq!(raw, &body["data"]);
    assert_eq!(benefit.kind(), BenefitType::Unknown("new_thing".to_owned()));
    assert_eq!(envelope.entity_id(), body["data"]["id"].as_str());
    assert_eq!(
        envelope.entity_modified_at(),
        Some(ts("2026-07-01T10:00:00Z"))
    );
    assert_round_trip("benefit.created/new_thing", &body, &envelope);

    // A grant of an unknown benefit type: the grant stays typed, its properties raw.
    let mut body = fixture_value("benefit_grant.created");
    body["data"]["benefit"]["type"] = json!("new_thing");
    let envelope = parse_value(&body).expect("parse");
    let Event::BenefitGrantCreated(grant) = &envelope.event else {
        panic!("grant")
    };
    assert!(grant.benefit.is_unknown());
    assert_eq!(
        grant.properties,
        GrantProperties::Unknown(body["data"]["properties"].clone())
    );
    assert_eq!(envelope.customer_external_id(), Some("usr_8f2Kd93LmQ"));
    assert_round_trip("benefit_grant.created/new_thing", &body, &envelope);
}

#[test]
fn unknown_price_amount_type_parses_and_round_trips() {
    let mut body = fixture_value("product.created");
    body["data"]["prices"][0]["amount_type"] = json!("something");
    let envelope = parse_value(&body).expect("parse");
    let Event::ProductCreated(product) = &envelope.event else {
        panic!("product.created")
    };
    assert!(product.prices[0].is_unknown());
    assert_eq!(
        product.prices[0].kind(),
        PriceAmountType::Unknown("something".to_owned())
    );
    assert_eq!(
        product.prices[0].id(),
        body["data"]["prices"][0]["id"].as_str()
    );
    assert_eq!(product.prices[1].kind(), PriceAmountType::MeteredUnit);
    assert_round_trip("product.created/something", &body, &envelope);
}

#[test]
fn unknown_values_in_other_enums_and_unions_round_trip() {
    let mut body = fixture_value("subscription.updated");
    body["data"]["status"] = json!("hibernating");
    body["data"]["discount"]["type"] = json!("buy_one_get_one");
    body["data"]["meters"][0]["meter"]["aggregation"] =
        json!({"func": "p99", "property": "latency"});
    body["data"]["product"]["visibility"] = json!("unlisted");
    let envelope = parse_value(&body).expect("parse");
    let Event::SubscriptionUpdated(subscription) = &envelope.event else {
        panic!("sub")
    };
    assert_eq!(
        subscription.core.status,
        SubscriptionStatus::Unknown("hibernating".to_owned())
    );
    assert!(
        subscription
            .discount
            .as_ref()
            .is_some_and(Discount::is_unknown)
    );
    assert_eq!(
        subscription.meters[0].meter.aggregation.kind().as_str(),
        "p99"
    );
    assert_round_trip("subscription.updated/unknowns", &body, &envelope);
}

#[test]
fn fractional_meter_units_are_kept_exactly() {
    let mut body = fixture_value("customer.state_changed");
    body["data"]["active_meters"][0]["consumed_units"] = json!(12.5);
    body["data"]["active_meters"][0]["balance"] = json!(-2.5);
    body["data"]["active_meters"][0]["credited_units"] = json!(10.0);
    let envelope = parse_value(&body).expect("parse");
    let Event::CustomerStateChanged(state) = &envelope.event else {
        panic!("state")
    };
    let meter = &state.active_meters[0];
    assert_eq!(
        (meter.consumed_units.as_f64(), meter.balance.as_f64()),
        (12.5, -2.5)
    );
    assert_eq!(meter.consumed_units.as_i64(), None);
    assert_round_trip("customer.state_changed/fractional", &body, &envelope);
    let written = envelope.to_value().expect("serialise");
    assert_eq!(
        written["data"]["active_meters"][0]["credited_units"],
        json!(10.0)
    );
}

#[test]
fn other_polar_event_types_sharing_an_entity_are_typed() {
    let retyped = [
        ("checkout.updated", "checkout.expired"),
        ("subscription.updated", "subscription.cycled"),
        ("subscription.updated", "subscription.past_due"),
        ("subscription.updated", "subscription.paused"),
        ("subscription.updated", "subscription.resumed"),
        ("subscription.updated", "subscription.migrated"),
    ];
    for (fixture, event_type) in retyped {
        let mut body = fixture_value(fixture);
        body["type"] = json!(event_type);
        let envelope = parse_value(&body).expect("parse");
        assert!(!envelope.event.is_unknown(), "{event_type}");
        assert_eq!(envelope.event_type(), event_type);
        assert_round_trip(event_type, &body, &envelope);
    }
    let envelope = parse_value(&json!({
        "type": "subscription.past_due",
        "timestamp": "2026-10-28T10:21:37.552013Z",
        "data": fixture_value("subscription.active")["data"],
    }))
    .expect("parse");
    assert!(matches!(envelope.event, Event::SubscriptionPastDue(_)));

    // discount.* carries the full discount, with products.
    let order = fixture_value("order.paid");
    let mut discount = order["data"]["discount"].clone();
    let mut product = order["data"]["product"].clone();
    if let Some(object) = product.as_object_mut() {
        object.remove("metadata");
    }
    discount["products"] = json!([product]);
    let body = json!({
        "type": "discount.updated",
        "timestamp": "2026-09-01T00:00:00.000000Z",
        "api_version": "2026-10",
        "data": discount,
    });
    let envelope = parse_value(&body).expect("parse");
    let Event::DiscountUpdated(discount) = &envelope.event else {
        panic!("discount.updated")
    };
    let products = discount
        .common()
        .and_then(|c| c.products.as_ref())
        .expect("products");
    assert_eq!(products[0].core.name, "Acme Desktop");
    assert_eq!(products[0].metadata, None);
    assert_eq!(
        envelope.organization_id(),
        Some("0b7c3c4e-6f1a-4d55-9a3e-2f0d8e1c5a10")
    );
    assert_round_trip("discount.updated", &body, &envelope);

    // member.* carries a member.
    let body = json!({
        "type": "member.created",
        "timestamp": "2026-08-14T10:21:35.200000Z",
        "api_version": "2026-10",
        "data": fixture_value("benefit_grant.created")["data"]["member"],
    });
    let envelope = parse_value(&body).expect("parse");
    assert!(matches!(envelope.event, Event::MemberCreated(_)));
    assert_eq!(
        envelope.customer_id(),
        Some("5d0e6b2a-8c41-4f7e-b3a9-1e6f2c7d9a21")
    );
    assert_round_trip("member.created", &body, &envelope);
}

#[test]
fn envelope_without_api_version_and_with_extra_keys() {
    let mut body = fixture_value("refund.updated");
    let object = body.as_object_mut().expect("object");
    object.remove("api_version");
    object.insert("delivery_hint".to_owned(), json!({"attempt": 2}));
    let envelope = parse_value(&body).expect("parse");
    assert_eq!(envelope.api_version(), None);
    assert_eq!(
        envelope.extra.get("delivery_hint"),
        Some(&json!({"attempt": 2}))
    );
    assert_round_trip("refund.updated/no-api-version", &body, &envelope);
    // serde entry points agree with parse_event.
    let via_serde: Envelope = serde_json::from_value(body.clone()).expect("serde");
    assert_eq!(via_serde, envelope);
}

// ---------------------------------------------------------------------------------------------
// errors

#[test]
fn malformed_json_is_an_error() {
    let error = parse_event(b"{\"type\": \"order.paid\", ").expect_err("malformed");
    assert!(matches!(error, PolarParseError::Json(_)), "{error:?}");
    let error = parse_event(b"").expect_err("empty");
    assert!(matches!(error, PolarParseError::Json(_)), "{error:?}");
}

#[test]
fn envelope_shape_errors() {
    let mut body = fixture_value("order.paid");
    body.as_object_mut().expect("object").remove("type");
    let error = parse_value(&body).expect_err("missing type");
    assert!(
        matches!(error, PolarParseError::MissingField("type")),
        "{error:?}"
    );

    let mut body = fixture_value("order.paid");
    body["type"] = json!(42);
    let error = parse_value(&body).expect_err("numeric type");
    assert!(
        matches!(error, PolarParseError::InvalidField { field: "type", .. }),
        "{error:?}"
    );

    let mut body = fixture_value("order.paid");
    body.as_object_mut().expect("object").remove("timestamp");
    let error = parse_value(&body).expect_err("missing timestamp");
    assert!(
        matches!(error, PolarParseError::MissingField("timestamp")),
        "{error:?}"
    );

    let mut body = fixture_value("order.paid");
    body["timestamp"] = json!("yesterday");
    let error = parse_value(&body).expect_err("bad timestamp");
    assert!(
        matches!(
            error,
            PolarParseError::InvalidField {
                field: "timestamp",
                ..
            }
        ),
        "{error:?}"
    );

    let mut body = fixture_value("order.paid");
    body.as_object_mut().expect("object").remove("data");
    let error = parse_value(&body).expect_err("missing data");
    assert!(
        matches!(error, PolarParseError::MissingField("data")),
        "{error:?}"
    );

    let error = parse_event(b"[1, 2]").expect_err("array");
    assert!(matches!(error, PolarParseError::NotAnObject), "{error:?}");
}

#[test]
fn known_type_with_mismatched_data_is_an_error_naming_the_type() {
    let mut body = fixture_value("order.paid");
    body["data"]["total_amount"] = json!("21.74");
    let error = parse_value(&body).expect_err("string amount");
    let PolarParseError::Data { event_type, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(event_type, "order.paid");
    assert!(error.to_string().contains("order.paid"), "{error}");

    // A float where integer cents are required is rejected, not rounded.
    let mut body = fixture_value("order.paid");
    body["data"]["items"][0]["amount"] = json!(2500.5);
    assert!(matches!(
        parse_value(&body),
        Err(PolarParseError::Data { .. })
    ));
}

#[test]
fn absent_optional_and_nullable_keys_parse_as_none() {
    let mut body = fixture_value("order.paid");
    let data = body["data"].as_object_mut().expect("object");
    for key in [
        "billing_name",
        "seats",
        "next_payment_attempt_at",
        "custom_field_data",
        "discount",
    ] {
        data.remove(key);
    }
    let envelope = parse_value(&body).expect("parse");
    let Event::OrderPaid(order) = &envelope.event else {
        panic!("order.paid")
    };
    assert_eq!(order.billing_name, None);
    assert_eq!(order.seats, None);
    assert_eq!(order.next_payment_attempt_at, None);
    assert_eq!(order.custom_field_data, None);
    assert_eq!(order.discount, None);
}
