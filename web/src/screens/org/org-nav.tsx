import { SubNav } from "../../components/widgets";

export function OrgNav() {
  return (
    <SubNav
      label="Organisation"
      items={[
        ["/org", "Members"],
        ["/org/roles", "Roles"],
        ["/org/security", "Security"],
        ["/org/sso", "Single sign-on"],
        ["/org/api-keys", "API keys"],
        ["/org/audit-log", "Audit log"],
      ]}
    />
  );
}
