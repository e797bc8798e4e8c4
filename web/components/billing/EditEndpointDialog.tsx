"use client";
import { useEffect } from "react";
import { billing, type Endpoint, type EndpointInput } from "@/lib/billing";
import { useT } from "@/lib/i18n/billing";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Dialog } from "../Dialog";
import { FormAlert } from "../FormAlert";
import { endpointChecks, EndpointFields, eventTypesOf, valuesOf, type EndpointFieldName } from "./EndpointFields";

/** Edits an endpoint's URL, description, event types and signature, prefilled with what it has now. */
export function EditEndpointDialog({
  endpoint,
  organizationId,
  open,
  onClose,
  onSaved,
}: {
  endpoint: Endpoint;
  organizationId: string;
  open: boolean;
  onClose: () => void;
  onSaved: () => Promise<void>;
}) {
  const t = useT();
  return (
    <Dialog open={open} title={t("edit.title")} onClose={onClose}>
      {/* Mounted on each opening, so it starts from the endpoint's values of that moment. */}
      <EditEndpointForm endpoint={endpoint} organizationId={organizationId} onClose={onClose} onSaved={onSaved} />
    </Dialog>
  );
}

/** What the form changes of `before`: a PATCH names only those fields. */
export function changesOf(before: Endpoint, values: Record<EndpointFieldName, string>): EndpointInput {
  const changes: EndpointInput = {};
  const url = values.url.trim();
  if (url !== before.url) changes.url = url;
  const description = values.description.trim();
  if (description !== before.description) changes.description = description;
  const eventTypes = eventTypesOf(values.eventTypes);
  if (eventTypes.join() !== before.eventTypes.join()) changes.eventTypes = eventTypes;
  const polarSigning = values.signing === "polar";
  if (polarSigning !== before.polarSigning) changes.polarSigning = polarSigning;
  return changes;
}

function EditEndpointForm({
  endpoint,
  organizationId,
  onClose,
  onSaved,
}: {
  endpoint: Endpoint;
  organizationId: string;
  onClose: () => void;
  onSaved: () => Promise<void>;
}) {
  const t = useT();
  const form = useForm(valuesOf(endpoint), endpointChecks);
  // After the dialog has opened (it focuses its first control), the field one came to change.
  useEffect(() => {
    const frame = requestAnimationFrame(() => form.focus("url"));
    return () => cancelAnimationFrame(frame);
  }, []);
  const submit = form.onSubmit(
    () => {
      const changes = changesOf(endpoint, form.values);
      // Nothing changed: nothing to ask the server.
      if (Object.keys(changes).length === 0) return Promise.resolve({ data: endpoint, error: null });
      return billing.updateEndpoint(organizationId, endpoint.id, changes);
    },
    async () => {
      await onSaved();
      onClose();
    },
  );
  return (
    <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate data-testid="edit-endpoint-form">
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <EndpointFields form={form} />
      <div className="actions">
        <Button type="submit" busy={form.busy} busyLabel={t("edit.saving")}>
          {t("edit.save")}
        </Button>
        <button type="button" className="button button-secondary" onClick={onClose}>
          {t("edit.cancel")}
        </button>
      </div>
    </form>
  );
}
