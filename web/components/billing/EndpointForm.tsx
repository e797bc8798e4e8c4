"use client";
import { billing } from "@/lib/billing";
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
    if (url === "") return "Enter the address that receives the events.";
    return /^https?:\/\/[^\s]+$/i.test(url) ? undefined : "Enter an absolute http or https address.";
  },
  eventTypes: (value: string) =>
    eventTypesOf(value).every((t) => /^[a-z_]+(\.[a-z_]+)*$/.test(t))
      ? undefined
      : "Event types are lower-case words joined by dots, like order.paid.",
};

/** Registers an endpoint for the organization. */
export function EndpointForm({ organizationId }: { organizationId: string }) {
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
      form.setNotice({ tone: "success", text: `Endpoint added: ${endpoint?.url ?? ""}. Reveal its secret to configure your receiver.` });
      await refreshBilling();
    },
  );
  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="endpoint-form-title">
      <h2 id="endpoint-form-title">Add an endpoint</h2>
      <p className="muted">
        Each billing event of your customers is sent to it, signed with Standard Webhooks, and retried for about a day
        until it answers 2xx.
      </p>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <Field label="Endpoint URL" type="url" inputMode="url" autoComplete="off" spellCheck={false} required placeholder="https://example.com/webhooks/billing" {...form.field("url")} />
      <Field label="Description (optional)" autoComplete="off" {...form.field("description")} />
      <Field
        label="Event types (optional)"
        autoComplete="off"
        spellCheck={false}
        hint="Separated by commas or spaces, like order.paid, subscription.active. Empty: every type."
        {...form.field("eventTypes")}
      />
      <fieldset className="field">
        <legend>Signature</legend>
        <label className="checkbox">
          <input type="radio" name="signing" value="standard" checked={form.values.signing === "standard"} onChange={() => form.setValues((v) => ({ ...v, signing: "standard" }))} />
          Standard Webhooks (any Standard Webhooks library verifies it)
        </label>
        <label className="checkbox">
          <input type="radio" name="signing" value="polar" checked={form.values.signing === "polar"} onChange={() => form.setValues((v) => ({ ...v, signing: "polar" }))} />
          As the payments platform signs (for receivers on its SDK)
        </label>
      </fieldset>
      <div className="actions">
        <Button type="submit" busy={form.busy} busyLabel="Adding…">
          Add endpoint
        </Button>
      </div>
    </form>
  );
}
