"use client";
import { billing } from "@/lib/billing";
import { t, useT } from "@/lib/i18n/billing";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { refreshBilling } from "./hooks";

/** `order.paid, subscription.active` → the list; blanks and repeats dropped. */
export function eventTypesOf(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

const checks = {
  url: (value: string) => {
    const url = value.trim();
    if (url === "") return t("endpointForm.urlRequired");
    return /^https?:\/\/[^\s]+$/i.test(url) ? undefined : t("endpointForm.urlInvalid");
  },
  eventTypes: (value: string) =>
    eventTypesOf(value).every((type) => /^[a-z_]+(\.[a-z_]+)*$/.test(type))
      ? undefined
      : t("endpointForm.eventTypesInvalid"),
};

/** Registers an endpoint for the organization. */
export function EndpointForm({ organizationId }: { organizationId: string }) {
  const t = useT();
  const form = useForm({ url: "", description: "", eventTypes: "", signing: "standard" }, checks);
  const submit = form.onSubmit(
    () =>
      billing.createEndpoint(organizationId, {
        url: form.values.url.trim(),
        description: form.values.description.trim(),
        eventTypes: eventTypesOf(form.values.eventTypes),
        polarSigning: form.values.signing === "polar",
      }),
    async (endpoint) => {
      form.reset();
      form.setNotice({ tone: "success", text: t("endpointForm.added", { url: endpoint?.url ?? "" }) });
      await refreshBilling();
    },
  );
  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="endpoint-form-title">
      <h2 id="endpoint-form-title">{t("endpointForm.title")}</h2>
      <p className="muted">{t("endpointForm.intro")}</p>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <Field label={t("endpointForm.url")} type="url" inputMode="url" autoComplete="off" spellCheck={false} required placeholder="https://example.com/webhooks/billing" {...form.field("url")} />
      <Field label={t("endpointForm.description")} autoComplete="off" {...form.field("description")} />
      <Field
        label={t("endpointForm.eventTypes")}
        autoComplete="off"
        spellCheck={false}
        hint={t("endpointForm.eventTypesHint")}
        {...form.field("eventTypes")}
      />
      <fieldset className="field">
        <legend>{t("endpointForm.signature")}</legend>
        <label className="checkbox">
          <input type="radio" name="signing" value="standard" checked={form.values.signing === "standard"} onChange={() => form.setValues((v) => ({ ...v, signing: "standard" }))} />
          {t("endpointForm.signingStandard")}
        </label>
        <label className="checkbox">
          <input type="radio" name="signing" value="polar" checked={form.values.signing === "polar"} onChange={() => form.setValues((v) => ({ ...v, signing: "polar" }))} />
          {t("endpointForm.signingPolar")}
        </label>
      </fieldset>
      <div className="actions">
        <Button type="submit" busy={form.busy} busyLabel={t("endpointForm.submitting")}>
          {t("endpointForm.submit")}
        </Button>
      </div>
    </form>
  );
}
