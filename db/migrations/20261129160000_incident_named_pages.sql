-- migrate:up
-- The pages an incident was put on by name, apart from those it shows on through its components: page_ids keeps
-- every page it shows on (what the page filters read), named_page_ids what the person chose. Without it, taking a
-- component off an incident left its page behind as if named. Existing rows: the shown pages that none of the
-- incident's components puts there (a page both named and holding a component counts as the component's).
alter table incidents add column named_page_ids text[] not null default '{}';
update incidents i set named_page_ids = coalesce((
  select array_agg(p order by p) from unnest(i.page_ids) p
  where p not in (select c.page_id from status_page_components c where c.id = any(i.component_ids))
), '{}');

-- migrate:down
alter table incidents drop column named_page_ids;
