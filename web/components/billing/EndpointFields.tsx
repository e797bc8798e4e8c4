"use client";
import { useId } from "react";
import type { Endpoint } from "@/lib/billing";
import { t, useT } from "@/lib/i18n/billing";
import type { useForm } from "@/lib/useForm";
import { Field } from "../Field";

/** `order.paid, subscription.active` → the list; blanks and repeats dropped. */
export function eventTypesOf(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

export type EndpointFieldName = "url" | "description" | "eventTypes" | "signing";
type EndpointForm = ReturnType<typeof useForm<EndpointFieldName>>;

/** A new endpoint's values. */
export const blankEndpoint: Record<EndpointFieldName, string> = { url: "", description: "", eventTypes: "", signing: "standard" };

/** An endpoint's values as the form shows them. */
export function valuesOf(endpoint: Endpoint): Record<EndpointFieldName, string> {
  return {
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: endpoint.eventTypes.join(", "),
    signing: endpoint.polarSigning ? "polar" : "standard",
  };
}

export const endpointChecks = {
  url: (value: string) => {
    const url = value.trim();
    if (url === "") return t("endpointForm.urlRequired");
    return /^https?:\/\/[^\s]+$/i.test(url) ? undefined : t("endpointForm.urlInvalid");
  },
  eventTypes: (value: string) =>
    eventTypesOf(value).every((type) => /^[a-z_]+(\.[a-z_]+)*$/.test(type)) ? undefined : t("endpointForm.eventTypesInvalid"),
};

/** The URL, description, event types and signature of an endpoint: the form that adds one and the one that edits it. */
export function EndpointFields({ form }: { form: EndpointForm }) {
  const t = useT();
  // Two of these forms can be on the page (adding, and editing in a dialog): each its own group.
  const signing = useId();
  const radio = (value: "standard" | "polar", label: string) => (
    <label className="checkbox">
      <input
        type="radio"
        name={signing}
        value={value}
        checked={form.values.signing === value}
        onChange={() => form.setValues((v) => ({ ...v, signing: value }))}
      />
      {label}
    </label>
  );
  return (
    <>
      <Field
        label={t("endpointForm.url")}
        type="url"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        required
        maxLength={2048}
        placeholder="https://example.com/webhooks/billing"
        {...form.field("url")}
      />
      <Field label={t("endpointForm.description")} autoComplete="off" maxLength={512} {...form.field("description")} />
      <Field label={t("endpointForm.eventTypes")} autoComplete="off" spellCheck={false} hint={t("endpointForm.eventTypesHint")} {...form.field("eventTypes")} />
      <fieldset className="field">
        <legend>{t("endpointForm.signature")}</legend>
        {radio("standard", t("endpointForm.signingStandard"))}
        {radio("polar", t("endpointForm.signingPolar"))}
      </fieldset>
    </>
  );
}
