from django.apps import AppConfig


class CoinflipConfig(AppConfig):
    name = "tests.coinflip"
    label = "ruleset_coinflip"
    verbose_name = "Coin flip (tests)"

    def ready(self) -> None:
        from rulesets.registry import register
        from tests.coinflip.plugin import PLUGIN

        register(PLUGIN)
