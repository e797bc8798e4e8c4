import { mutate } from "swr";
import { keys } from "@/lib/session";

/** Revalidates every cached page of the users table after an admin action. */
export function refreshUsers() {
  return mutate((key) => Array.isArray(key) && key[0] === keys.adminUsers("", {})[0]);
}
