from django.core.management.base import BaseCommand

from campaigns.demo import DEMO_PASSWORD, load_demo


class Command(BaseCommand):
    help = "Load one demo campaign per ruleset (Spanish content). Running it twice changes nothing."

    def handle(self, *args: object, **options: object) -> None:
        created = load_demo()
        if created:
            for campaign in created:
                self.stdout.write(f"  + {campaign.title} ({campaign.ruleset})")
            self.stdout.write(
                self.style.SUCCESS(
                    f"Demo loaded. Log in as 'directora', 'ana', 'bruno', 'carla', 'dario' or 'lector' "
                    f"with the password '{DEMO_PASSWORD}' (local use only)."
                )
            )
        else:
            self.stdout.write("Demo data already present: nothing changed.")
